tests/golden/pmcpp/in/illegal-name.pmns
