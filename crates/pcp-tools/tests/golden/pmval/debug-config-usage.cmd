-Dconfig
-Z
--env
PCP_CONF=tests/golden/pminfo/config/pcp.conf
TZ=UTC
LC_ALL=C
