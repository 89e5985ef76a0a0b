-a
../pcp-archive/tests/fixtures/multi/dir3
-dmT
sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
