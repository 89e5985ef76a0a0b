-a
tests/golden/pmdumplog/arch/metadirect
-tT
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
