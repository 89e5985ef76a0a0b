-Dlogmeta
-a
tests/golden/pmdumplog/arch/badmeta
-m
--env
PCP_DERIVED_CONFIG=
