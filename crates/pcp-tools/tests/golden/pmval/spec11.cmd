-s
2
:sample.long.one
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
