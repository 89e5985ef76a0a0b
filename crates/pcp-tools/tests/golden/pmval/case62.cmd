-a
tests/golden/pmdumplog/arch/badevent
sample.event.highres_records
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
