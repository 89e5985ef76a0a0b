-x
-a
tests/golden/pmdumplog/arch/events2
sample.event
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
