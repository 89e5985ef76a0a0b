-a
tests/golden/pmdumplog/arch/metanoinst
-f
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
