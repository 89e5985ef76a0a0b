-a
tests/golden/pmdumplog/arch/metadirect
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
