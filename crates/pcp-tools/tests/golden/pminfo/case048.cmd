-m
-n
tests/golden/pminfo/ns/dup-names-ok.pmns
--env
PCP_DERIVED_CONFIG=
PCP_VAR_DIR=tests/golden/pminfo/vardir
TZ=UTC
LC_ALL=C
