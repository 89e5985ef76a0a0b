-a
../pcp-archive/tests/fixtures/multi/s2b,../pcp-archive/tests/fixtures/multi/s2a
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
