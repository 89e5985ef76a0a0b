-Z
EST5
-x
-S
@Sat Nov 21 13:25:16 2026
tests/golden/pmdumplog/arch/v3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
