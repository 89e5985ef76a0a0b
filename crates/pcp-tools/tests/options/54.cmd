pmdumplog -x -v
