tests/golden/pmcpp/in/restrict.pmns
