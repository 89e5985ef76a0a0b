-DX=1
-DX=2
tests/golden/pmcpp/in/ifdef.pmns
