-d
-I
tests/golden/pmcpp/in/debug/sub
tests/golden/pmcpp/in/debug/top.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
