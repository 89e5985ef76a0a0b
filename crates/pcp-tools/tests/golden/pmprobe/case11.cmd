-a
../pcp-archive/tests/fixtures/v2
nosuch
sample.seconds
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
