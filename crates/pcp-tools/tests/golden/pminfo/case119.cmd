-a
tests/golden/pminfo/arch/labels-v3
-l
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
