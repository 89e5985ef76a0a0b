tests/golden/pmcpp/in/include-extra.pmns
