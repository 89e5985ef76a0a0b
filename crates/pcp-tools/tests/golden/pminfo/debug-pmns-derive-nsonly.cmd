-Dpmns,derive,appl2
-n
tests/golden/pminfo/ns/deep.pmns
-m
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
