-h
localhost
-s
1
no.such
