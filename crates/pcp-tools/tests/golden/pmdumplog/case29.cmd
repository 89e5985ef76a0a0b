-M
tests/golden/pmdumplog/arch/marks3
sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
