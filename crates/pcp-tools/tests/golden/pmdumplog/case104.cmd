-d
tests/golden/pmdumplog/arch/events3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_NAMESPACE=tests/golden/pmdumplog/arch/alt.pmns
