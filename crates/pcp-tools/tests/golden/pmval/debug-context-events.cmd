-Dcontext,pmns
-a
tests/golden/pmdumplog/arch/events3
sample.event.records
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
