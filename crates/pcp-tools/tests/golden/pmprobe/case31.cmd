--version
-x
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
