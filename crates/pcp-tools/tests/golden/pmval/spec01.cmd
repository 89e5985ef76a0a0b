-s
3
../pcp-archive/tests/fixtures/v2/sample.seconds
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
