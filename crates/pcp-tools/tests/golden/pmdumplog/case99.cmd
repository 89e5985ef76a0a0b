-r
tests/golden/pmdumplog/arch/v3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_START_TIME=+1
PCP_FINISH_TIME=-1
