-d
tests/golden/pmcpp/in/debug/noendif.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
