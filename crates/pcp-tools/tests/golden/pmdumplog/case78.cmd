-Z
AEST-10AEDT-11,M10.5.0/3,M3.5.0/2
-S
@Sun Nov 22 05:25:15 2026
-T
@Sun Nov 22 05:25:16.5 2026
tests/golden/pmdumplog/arch/v3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
