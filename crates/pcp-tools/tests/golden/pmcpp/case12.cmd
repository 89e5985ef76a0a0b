tests/golden/pmcpp/in/stray-else.pmns
