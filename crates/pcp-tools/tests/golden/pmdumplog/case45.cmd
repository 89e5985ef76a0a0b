-r
tests/golden/pmdumplog/arch/backwards
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
