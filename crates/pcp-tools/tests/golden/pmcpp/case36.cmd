-I
tests/golden/pmcpp
tests/golden/pmcpp/incpath.pmns
