-Dcontext
-m
../pcp-archive/tests/fixtures/v2
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
