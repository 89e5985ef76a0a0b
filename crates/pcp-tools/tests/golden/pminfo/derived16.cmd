-n
tests/golden/pminfo/ns/dynamic-derived.pmns
proc
--env
PCP_DERIVED_CONFIG=tests/golden/pminfo/derived/below-dynamic.conf
PCP_VAR_DIR=tests/golden/pminfo/vardir
TZ=UTC
LC_ALL=C
