tests/golden/pmcpp/in/nosuch.pmns
