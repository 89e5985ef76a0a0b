tests/golden/pmcpp/in/macros.pmns
