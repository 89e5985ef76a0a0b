-d
-DX
tests/golden/pmcpp/in/debug/no-such-input
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
