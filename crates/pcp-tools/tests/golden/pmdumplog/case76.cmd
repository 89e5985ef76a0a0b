-S
@Sat Nov 21 18:25:15.5 2026
-T
@Sat Nov 21 18:25:16.9 2026
tests/golden/pmdumplog/arch/v3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
