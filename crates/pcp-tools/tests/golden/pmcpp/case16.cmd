tests/golden/pmcpp/in/include.pmns
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
