-z
-r
-S
@Sat Nov 21 20:11:03.5 2026
tests/golden/pmdumplog/arch/marks3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
