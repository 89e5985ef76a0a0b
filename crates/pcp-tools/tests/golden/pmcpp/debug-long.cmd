-d
tests/golden/pmcpp/in/debug/long.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
