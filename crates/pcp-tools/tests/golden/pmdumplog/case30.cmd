tests/golden/pmdumplog/arch/marks3
sample.colour
sample.long.one
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
