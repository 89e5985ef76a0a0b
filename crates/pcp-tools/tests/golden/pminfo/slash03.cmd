-a
../pcp-archive/tests/fixtures/v3.0/
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
