-s
-m
tests/golden/pmdumplog/arch/events3
sample.event
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
