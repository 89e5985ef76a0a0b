tests/golden/pmcpp/in/nested.pmns
