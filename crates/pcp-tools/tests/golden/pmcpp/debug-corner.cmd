-d
-rs
tests/golden/pmcpp/in/debug/corner.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
