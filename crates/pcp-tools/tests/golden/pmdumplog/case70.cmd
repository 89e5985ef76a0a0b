-L
tests/golden/pmdumplog/arch/features
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
