-h
localhost
-v
event
