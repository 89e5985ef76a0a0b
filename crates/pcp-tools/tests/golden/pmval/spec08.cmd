-s
2
-U
../pcp-archive/tests/fixtures/v2/sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
