-U
../pcp-archive/tests/fixtures/v2
--derived=tests/derived/functions.conf
fn.sum.bin
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
