-a
../pcp-archive/tests/fixtures/v3
-b
2x
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
