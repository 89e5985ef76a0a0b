tests/golden/pmcpp/in/comment-open.pmns
