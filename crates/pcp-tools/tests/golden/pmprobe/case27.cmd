-a
tests/golden/pmdumplog/arch/badmeta
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
