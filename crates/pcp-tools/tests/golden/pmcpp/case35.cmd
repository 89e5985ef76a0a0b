-D
9bad
tests/golden/pmcpp/in/ifdef.pmns
