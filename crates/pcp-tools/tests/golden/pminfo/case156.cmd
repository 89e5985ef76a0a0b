-m
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_NAMESPACE=tests/golden/pminfo/ns/trim.pmns
