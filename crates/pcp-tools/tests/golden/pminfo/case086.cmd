-h
nosuchhost.invalid
-m
--env
PCP_DERIVED_CONFIG=
PCP_VAR_DIR=tests/golden/pminfo/vardir
TZ=UTC
LC_ALL=C
