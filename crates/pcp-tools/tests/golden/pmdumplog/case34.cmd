-a
tests/golden/pmdumplog/arch/zmix
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
