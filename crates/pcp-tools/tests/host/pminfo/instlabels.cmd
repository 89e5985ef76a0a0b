-h
localhost
-Il
-tT
29.2
