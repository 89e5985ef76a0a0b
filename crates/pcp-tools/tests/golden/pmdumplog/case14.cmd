-L
-z
../pcp-archive/tests/fixtures/v2.index
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
