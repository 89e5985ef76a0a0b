-L
hinv.ncpu
--env
PCP_CONF=tests/golden/pminfo/config/local/pcp.conf
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_DEBUG=config
