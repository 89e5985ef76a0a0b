-d
tests/golden/pmcpp/in/debug/nul.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
