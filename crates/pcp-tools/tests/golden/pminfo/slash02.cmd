-d
-a
../pcp-archive/tests/fixtures//v2//,../pcp-archive/tests/fixtures/multi/dir3/
sample.long
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
