tests/golden/pmcpp/in/unknown-ctl.pmns
