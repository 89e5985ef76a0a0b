-Dlogmeta
-a
tests/golden/pmdumplog/arch/v3
-I
sample.colour
--env
PCP_DERIVED_CONFIG=
