-U
../pcp-archive/tests/fixtures/multi/ov1,../pcp-archive/tests/fixtures/multi/ov2
sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
