-v
sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_ARCHIVE=tests/golden/pmdumplog/arch/v3
PCP_ORIGIN=@18:25:16.5
