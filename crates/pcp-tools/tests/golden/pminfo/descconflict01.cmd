-a
tests/golden/pmdumplog/arch/descconflict
-d
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
