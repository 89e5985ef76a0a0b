-a
../pcp-archive/tests/fixtures/v2
-b
2x
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
