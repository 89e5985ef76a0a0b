tests/golden/pmcpp/in/extra-text.pmns
