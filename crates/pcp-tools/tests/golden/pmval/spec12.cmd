-s
2
../pcp-archive/tests/fixtures/v2/sample.bin[a" "b]
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
