pminfo -a /var/lib/pcp/testsuite/archives/20180127.08.40 -O junk sample.long.one
