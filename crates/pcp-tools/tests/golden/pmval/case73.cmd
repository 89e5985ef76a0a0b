-a
tests/golden/pmdumplog/arch/v3
sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_NAMESPACE=tests/golden/pmdumplog/arch/alt.pmns
