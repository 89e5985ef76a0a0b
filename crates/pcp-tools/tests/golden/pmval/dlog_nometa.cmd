-Dlog
-a
tests/golden/pmdumplog/arch/nometa
sample.long.one
--env
PCP_DERIVED_CONFIG=
