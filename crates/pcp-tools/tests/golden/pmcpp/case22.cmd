tests/golden/pmcpp/in/self.pmns
