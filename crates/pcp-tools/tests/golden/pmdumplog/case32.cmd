-i
-I
tests/golden/pmdumplog/arch/multi3
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
