-xx
-S
+1.5
tests/golden/pmdumplog/arch/marks3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
