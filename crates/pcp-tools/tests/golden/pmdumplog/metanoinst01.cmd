-a
tests/golden/pmdumplog/arch/metanoinst
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
