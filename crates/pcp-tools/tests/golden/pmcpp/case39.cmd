tests/golden/pmcpp/in
