-a
../pcp-archive/tests/fixtures/multi/s2a,
-f
sample.long.one
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
