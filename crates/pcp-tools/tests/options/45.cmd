pmval -a /var/lib/pcp/testsuite/archives/20180127.08.40 -A 0 kernel.all.load
