-Dconfig
-a
tests/golden/pmdumplog/arch/zmix
--env
PCP_CONF=tests/golden/pminfo/config/tmpfile/pcp.conf
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
