-s
tests/golden/pmdumplog/arch/nodesc
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
