--define=Y=2
--restrict
tests/golden/pmcpp/in/restrict.pmns
