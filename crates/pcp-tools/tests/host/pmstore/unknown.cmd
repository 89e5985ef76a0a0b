-h
localhost
no.such
5
