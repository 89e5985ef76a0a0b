-Dlogmeta
-a
tests/golden/pmdumplog/arch/metatextty
-m
--env
PCP_DERIVED_CONFIG=
