-Dlogmeta
-a
tests/golden/pmdumplog/arch/metanegid
-m
--env
PCP_DERIVED_CONFIG=
