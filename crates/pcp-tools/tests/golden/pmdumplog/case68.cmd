-r
-s
tests/golden/pmdumplog/arch/vtype0
sample.ulonglong.million
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
