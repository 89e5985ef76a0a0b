-Dconfig
-a
../pcp-archive/tests/fixtures/v3
sample.seconds
--env
PCP_CONF=tests/golden/pminfo/config/pcp.conf
TZ=UTC
LC_ALL=C
