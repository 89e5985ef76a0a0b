tests/golden/pmcpp/in/missing-name.pmns
