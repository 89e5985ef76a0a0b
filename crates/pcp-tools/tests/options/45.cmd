pmval -a tests/golden/pmdumplog/arch/v3 -A 0 sample.long.one
