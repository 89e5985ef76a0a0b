pmval -a tests/golden/pmdumplog/arch/v3 -S junk sample.long.one
