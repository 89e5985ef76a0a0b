pmdumplog --all --x tests/golden/pmdumplog/arch/v3
