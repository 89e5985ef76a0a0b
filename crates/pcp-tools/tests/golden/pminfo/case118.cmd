--archive
tests/golden/pmdumplog/arch/v3.meta
-fd
sample
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
