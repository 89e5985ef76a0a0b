-Dlogmeta
-a
tests/golden/pmdumplog/arch/metaname
-m
--env
PCP_DERIVED_CONFIG=
