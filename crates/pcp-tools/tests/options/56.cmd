pmdumplog --start=@junk --rev -a tests/golden/pmdumplog/arch/v3
