-I
tests/golden/pmdumplog/arch/metadesclen
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
