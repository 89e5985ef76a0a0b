pmdumplog -z -Z X tests/golden/pmdumplog/arch/v3
