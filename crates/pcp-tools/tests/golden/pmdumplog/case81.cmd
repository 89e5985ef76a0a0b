-S
2026-11-21 18:25:16
tests/golden/pmdumplog/arch/v3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
