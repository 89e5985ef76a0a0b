-U
../pcp-archive/tests/fixtures/badinst
sample.bin
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
