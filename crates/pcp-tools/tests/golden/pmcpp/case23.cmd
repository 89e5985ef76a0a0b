tests/golden/pmcpp/in/shell.pmns
