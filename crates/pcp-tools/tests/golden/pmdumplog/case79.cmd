-z
-L
-m
-S
@Sat Nov 21 18:25:16 2026
tests/golden/pmdumplog/arch/zoneinfo
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
