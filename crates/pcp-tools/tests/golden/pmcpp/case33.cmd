-DDOM=99
-D
EXTRA
tests/golden/pmcpp/in/macros.pmns
