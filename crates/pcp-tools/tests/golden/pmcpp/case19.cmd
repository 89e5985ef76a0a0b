tests/golden/pmcpp/in/include-open.pmns
