-U
../pcp-archive/tests/fixtures/badinst
--derived=tests/golden/pmval/badinst.conf
bad.twice
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
