-Z
UTC
-S
@Sat Nov 21 18:25:16 2026 extra
tests/golden/pmdumplog/arch/v3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
