-a
tests/golden/pmdumplog/arch/metaname
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
