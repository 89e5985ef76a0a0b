-d
-DX=1
-D
Y=a b
tests/golden/pmcpp/in/debug/define.in
--env
PCP_VAR_DIR=tests/golden/pmcpp/vardir
