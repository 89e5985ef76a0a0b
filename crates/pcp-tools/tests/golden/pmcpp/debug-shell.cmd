-d
-s
tests/golden/pmcpp/in/debug/eek.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
