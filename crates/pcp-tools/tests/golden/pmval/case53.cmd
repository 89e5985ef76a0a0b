-a
tests/golden/pmdumplog/arch/trunc
sample.seconds
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
