tests/golden/pmcpp/incpath.pmns
