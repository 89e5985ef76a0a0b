-r
tests/golden/pmdumplog/arch/farindex
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
