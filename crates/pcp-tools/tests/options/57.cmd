pmdumplog -T -1d -O 5 tests/golden/pmdumplog/arch/v3
