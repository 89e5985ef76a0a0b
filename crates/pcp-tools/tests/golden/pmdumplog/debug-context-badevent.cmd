-Dcontext
tests/golden/pmdumplog/arch/badevent
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
