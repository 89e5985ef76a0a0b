tests/golden/pmdumplog/arch/events3
nosuch.metric
event
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
