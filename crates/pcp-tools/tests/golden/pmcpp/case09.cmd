tests/golden/pmcpp/in/ifdef.pmns
