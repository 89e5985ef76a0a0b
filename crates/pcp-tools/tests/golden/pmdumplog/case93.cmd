-r
-T
-1
tests/golden/pmdumplog/arch/noend
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
