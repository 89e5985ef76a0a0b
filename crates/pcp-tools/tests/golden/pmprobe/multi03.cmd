-a
../pcp-archive/tests/fixtures/multi/dir3
-i
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
