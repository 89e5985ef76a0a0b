-f
sample.long.one
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_ARCHIVE=tests/golden/pmdumplog/arch/v3
PCP_ORIGIN=+2
