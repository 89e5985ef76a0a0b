tests/golden/pmcpp/in/nul.pmns
