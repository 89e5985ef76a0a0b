-a
../pcp-archive/tests/fixtures/v2
-c
tests/golden/pminfo/derived/good.conf
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
