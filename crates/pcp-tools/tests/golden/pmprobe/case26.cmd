-a
tests/golden/pmdumplog/arch/trunc
-v
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
