-a
tests/golden/pmdumplog/arch/indomusec
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
