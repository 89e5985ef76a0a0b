-T
+0.3
-r
tests/golden/pmdumplog/arch/gaps
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
