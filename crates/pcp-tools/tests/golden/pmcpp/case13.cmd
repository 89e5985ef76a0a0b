tests/golden/pmcpp/in/no-endif.pmns
