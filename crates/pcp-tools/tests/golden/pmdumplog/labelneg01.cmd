-e
tests/golden/pmdumplog/arch/labelneg
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
