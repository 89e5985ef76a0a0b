-a
tests/golden/pmdumplog/arch/indexvol
-v
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
