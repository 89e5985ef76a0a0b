-Dcontext,derive
-a
tests/golden/pmdumplog/arch/events2
sample.event.highres_records
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
