-z
tests/golden/pmdumplog/arch/zoneinfo
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
