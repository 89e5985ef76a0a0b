-L
-K
add,3,/var/lib/pcp/pmdas/proc/pmda_proc.so,proc_init
proc.control.perclient.cgroups

--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
LINUX_STATSPATH=../pcp-linux/tests/snapshot/vm1
LINUX_HERTZ=100
LINUX_PAGESIZE=4096
LINUX_NCPUS=2
PROC_STATSPATH=../pcp-linux/tests/snapshot/procpid
