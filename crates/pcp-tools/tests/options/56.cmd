pmdumplog --start=@junk --rev -a /var/lib/pcp/testsuite/archives/20180127.08.40
