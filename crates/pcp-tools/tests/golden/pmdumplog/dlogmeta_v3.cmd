-Dlogmeta
-a
tests/golden/pmdumplog/arch/v3
--env
PCP_DERIVED_CONFIG=
