tests/golden/pmdumplog/arch/trunc
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
