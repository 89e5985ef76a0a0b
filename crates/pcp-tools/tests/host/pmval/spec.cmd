-s
2
-t
0.01
localhost:sample.bin[bin-300,bin-400]
