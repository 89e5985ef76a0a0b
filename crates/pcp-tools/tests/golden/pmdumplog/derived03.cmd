-z
tests/golden/pmdumplog/arch/v3
my
--env
PCP_DERIVED_CONFIG=tests/golden/pmdumplog/derived/names.conf
TZ=UTC
LC_ALL=C
