-a
../pcp-archive/tests/fixtures/v3
nosuch
sample.seconds
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
