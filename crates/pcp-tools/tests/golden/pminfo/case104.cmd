-a
../pcp-archive/tests/fixtures/v3
-d
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
