-h
localhost
-dtTf
event
