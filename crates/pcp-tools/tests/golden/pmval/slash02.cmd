-s
2
../pcp-archive/tests/fixtures/v3//sample.bin
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
