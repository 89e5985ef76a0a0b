-a
../pcp-archive/tests/fixtures/v3
sample.float.ten
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
