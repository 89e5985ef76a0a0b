tests/golden/pmcpp/in/else-twice.pmns
