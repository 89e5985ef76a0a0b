-h
localhost
-s
1
-t
0.01
-x
foo bar
-i
fungus,bogus
sample.event.records
