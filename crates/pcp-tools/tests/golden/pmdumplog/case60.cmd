tests/golden/pmdumplog/arch
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
