-a
../pcp-archive/tests/fixtures/v2
sample.long.one
extra
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
