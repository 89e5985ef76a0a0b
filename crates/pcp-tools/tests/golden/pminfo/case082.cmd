-n
tests/golden/pminfo/ns/spec-example.pmns
387.0.0
--env
PCP_DERIVED_CONFIG=
PCP_VAR_DIR=tests/golden/pminfo/vardir
TZ=UTC
LC_ALL=C
