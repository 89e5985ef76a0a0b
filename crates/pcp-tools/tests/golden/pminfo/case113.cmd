-a
tests/golden/pmdumplog/arch/xz
-f
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
