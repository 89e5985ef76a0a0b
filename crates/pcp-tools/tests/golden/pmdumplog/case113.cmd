-r
-S
@Sat Nov 21 20:10:59.434794 2026
-T
-1
tests/golden/pmdumplog/arch/events2
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
