-L
-z
tests/golden/pmdumplog/arch/v3.meta
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
