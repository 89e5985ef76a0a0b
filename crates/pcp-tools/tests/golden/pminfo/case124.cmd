-a
tests/golden/pminfo/arch/nolabels-v2
-l
-f
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
