-l
tests/golden/pmdumplog/arch/xz.0.xz
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
