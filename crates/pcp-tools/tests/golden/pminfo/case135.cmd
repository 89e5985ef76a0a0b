-a
tests/golden/pminfo/arch/badhost-v2
-s
-v
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
