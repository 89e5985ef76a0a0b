-a
../pcp-archive/tests/fixtures/v3
-r
sample.seconds
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
