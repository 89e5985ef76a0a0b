-r
-t
tests/golden/pmdumplog/arch/zmix.meta.Z
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
