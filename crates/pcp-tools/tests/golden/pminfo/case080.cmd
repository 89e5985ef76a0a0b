-n
tests/golden/pminfo/ns/spec-example.pmns
-V
--env
PCP_DERIVED_CONFIG=
PCP_VAR_DIR=tests/golden/pminfo/vardir
TZ=UTC
LC_ALL=C
