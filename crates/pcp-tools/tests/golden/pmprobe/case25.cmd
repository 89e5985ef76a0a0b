-a
tests/golden/pmdumplog/arch/xz
-v
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
