tests/golden/pmcpp/in/include-missing.pmns
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
