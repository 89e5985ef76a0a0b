-xx
-I
tests/golden/pmdumplog/arch/desctype6
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
