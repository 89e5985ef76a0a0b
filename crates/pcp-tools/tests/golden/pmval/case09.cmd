-a
../pcp-archive/tests/fixtures/v2
sample.float.ten
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
