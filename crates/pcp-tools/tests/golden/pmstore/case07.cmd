-L
-F
-i
5 minute
kernel.all.load
2.5
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
LINUX_STATSPATH=../pcp-linux/tests/snapshot/vm1
LINUX_HERTZ=100
LINUX_PAGESIZE=4096
LINUX_NCPUS=2
