-a
../pcp-archive/tests/fixtures/multi/s2a,,../pcp-archive/tests/fixtures/multi/s2b
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
