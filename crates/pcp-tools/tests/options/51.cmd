pmdumplog -V
