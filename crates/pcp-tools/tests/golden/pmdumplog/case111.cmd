-S
+0.6
-s
tests/golden/pmdumplog/arch/gaps
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
