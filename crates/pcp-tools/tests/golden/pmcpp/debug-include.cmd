-d
-I
tests/golden/pmcpp/in/debug/sub
-I
tests/golden/pmcpp/in/debug/sub/deeper
tests/golden/pmcpp/in/debug/top.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
