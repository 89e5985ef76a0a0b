-U
../pcp-archive/tests/fixtures/wrap
--derived=tests/derived/wrap.conf
wr.rate.ulong
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
