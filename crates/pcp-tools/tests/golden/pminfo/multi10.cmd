-a
../pcp-archive/tests/fixtures/multi/ov1,../pcp-archive/tests/fixtures/multi/ov2
-f
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
