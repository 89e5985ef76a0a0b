-Dlogmeta
-i
tests/golden/pminfo/arch/labels-v3
--env
PCP_DERIVED_CONFIG=
