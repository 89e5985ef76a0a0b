-Dpdu,log
-r
tests/golden/pmdumplog/arch/multi3
sample.colour
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
