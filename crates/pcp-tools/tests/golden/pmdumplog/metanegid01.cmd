-a
tests/golden/pmdumplog/arch/metanegid
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
