-a
tests/golden/pminfo/arch/late-v3
-s
sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
