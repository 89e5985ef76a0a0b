tests/golden/pmcpp/in/blank.pmns
/nonexistent/dir/out
