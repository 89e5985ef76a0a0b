-a
tests/golden/pmdumplog/arch/trunc
-f
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
