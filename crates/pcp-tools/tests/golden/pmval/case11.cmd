-a
../pcp-archive/tests/fixtures/v2
sample.aggregate.hullo
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
