tests/golden/pmcpp/in/comments.pmns
