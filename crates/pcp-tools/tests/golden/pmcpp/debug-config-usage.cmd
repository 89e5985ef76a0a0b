-Z
--env
PCP_DEBUG=config
PCP_CONF=tests/golden/pminfo/config/pcp.conf
TZ=UTC
LC_ALL=C
