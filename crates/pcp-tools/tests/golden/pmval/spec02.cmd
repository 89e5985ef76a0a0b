-s
3
../pcp-archive/tests/fixtures/v3/sample.bin[bin-100,bin-300]
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
