tests/golden/pmcpp/in/unterminated.pmns
