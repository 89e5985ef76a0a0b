-s
2
../pcp-archive/tests/fixtures/v2/sample.bin["bin-100" bin-900]
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
