pmval
