-l
-t
-z
tests/golden/pmdumplog/arch/xz
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
