-Dlogmeta
-a
tests/golden/pminfo/arch/labels-v3
-f
--env
PCP_DERIVED_CONFIG=
