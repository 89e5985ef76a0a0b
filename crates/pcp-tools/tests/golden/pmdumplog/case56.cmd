tests/golden/pmdumplog/arch/events3
event.flags
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
