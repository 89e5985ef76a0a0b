-r
-x
tests/golden/pmdumplog/arch/lateend
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
