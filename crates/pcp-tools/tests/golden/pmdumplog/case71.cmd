tests/golden/pmdumplog/arch/features
sample.long.one
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
