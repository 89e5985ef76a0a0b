pmval -V
