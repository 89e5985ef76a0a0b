-a
../pcp-archive/tests/fixtures/v3
sample.long.one
extra
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
