pminfo -a /var/lib/pcp/testsuite/archives/20180127.08.40 -h H
