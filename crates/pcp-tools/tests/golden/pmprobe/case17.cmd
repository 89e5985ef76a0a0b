-a
../pcp-archive/tests/fixtures/v3
-fI
sample.bin
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
