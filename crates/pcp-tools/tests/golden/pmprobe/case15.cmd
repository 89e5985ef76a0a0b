-a
../pcp-archive/tests/fixtures/v3
-i
-I
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
