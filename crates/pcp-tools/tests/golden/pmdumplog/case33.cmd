-r
tests/golden/pmdumplog/arch/multi3.2
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
