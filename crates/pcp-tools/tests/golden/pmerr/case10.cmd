abc
-abc
+5
-0
