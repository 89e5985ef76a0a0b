-a
../pcp-archive/tests/fixtures/v3
sample.aggregate.hullo
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
