-a
../pcp-archive/tests/fixtures/multi/dir3
-f
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
