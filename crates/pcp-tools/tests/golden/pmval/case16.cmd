-a
../pcp-archive/tests/fixtures/v2
no.such
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
