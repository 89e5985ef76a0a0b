tests/golden/pmcpp/in/stray-endif.pmns
