-Dlogmeta
-a
tests/golden/pmdumplog/arch/v3
-f
sample.colour
sample.long.one
--env
PCP_DERIVED_CONFIG=
