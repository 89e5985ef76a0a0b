-a
../pcp-archive/tests/fixtures/v3
-F
no.such
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
