tests/golden/pmdumplog/arch/vtype0
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
