-zm
tests/golden/pmdumplog/arch/v3
my.sub
my.nosuch
--env
PCP_DERIVED_CONFIG=tests/golden/pmdumplog/derived/names.conf
TZ=UTC
LC_ALL=C
