-a
tests/golden/pmdumplog/arch/indexvol
-f
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
