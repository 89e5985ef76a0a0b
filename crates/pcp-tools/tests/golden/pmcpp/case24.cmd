tests/golden/pmcpp/in/shell-noquote.pmns
