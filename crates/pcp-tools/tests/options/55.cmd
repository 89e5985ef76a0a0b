pmdumplog -v x y
