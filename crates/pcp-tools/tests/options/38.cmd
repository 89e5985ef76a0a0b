pmval a b
