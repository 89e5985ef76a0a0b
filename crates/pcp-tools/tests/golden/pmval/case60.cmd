-a
tests/golden/pmdumplog/arch/events3
-X
sample.event.highres_records
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
