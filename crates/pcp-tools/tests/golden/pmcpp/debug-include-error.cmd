-d
tests/golden/pmcpp/in/debug/missing.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
