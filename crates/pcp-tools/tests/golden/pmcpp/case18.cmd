tests/golden/pmcpp/in/include-noquote.pmns
