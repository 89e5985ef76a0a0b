-Dcontext,log
-z
-m
tests/golden/pmdumplog/arch/events2
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
