../pcp-archive/tests/fixtures/multi/dir3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
