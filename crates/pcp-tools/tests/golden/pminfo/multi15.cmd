-a
tests/golden/pmerr
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
