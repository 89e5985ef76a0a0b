tests/golden/pmcpp/in/redefine.pmns
