tests/golden/pmcpp/in/blank.pmns
