-Dlog
tests/golden/pmdumplog/arch/nometa
--env
PCP_DERIVED_CONFIG=
