pmdumplog -T -1d -O 5 /var/lib/pcp/testsuite/archives/20180127.08.40
