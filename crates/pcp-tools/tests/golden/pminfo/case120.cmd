-a
tests/golden/pminfo/arch/labels-v2
-lf
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
