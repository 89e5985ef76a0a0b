-a
tests/golden/pmdumplog/arch/v3
-h
local:
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
