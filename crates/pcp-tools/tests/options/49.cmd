pmdumplog -S junk tests/golden/pmdumplog/arch/v3
