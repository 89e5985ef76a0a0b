-Dcontext
tests/golden/pmdumplog/arch/nosuch
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
