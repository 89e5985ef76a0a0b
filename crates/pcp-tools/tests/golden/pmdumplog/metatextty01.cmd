-a
tests/golden/pmdumplog/arch/metatextty
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
