-v
tests/golden/pmdumplog/arch/trunc.0
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
