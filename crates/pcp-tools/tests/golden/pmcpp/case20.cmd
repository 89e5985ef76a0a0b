tests/golden/pmcpp/in/include-open2.pmns
