-s
2
../pcp-archive/tests/fixtures/nosuch/sample.seconds
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
