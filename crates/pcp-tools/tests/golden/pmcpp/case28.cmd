tests/golden/pmcpp/in/shellstyle.pmns
