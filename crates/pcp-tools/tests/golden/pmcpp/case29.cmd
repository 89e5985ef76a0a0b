tests/golden/pmcpp/in/no-newline.pmns
