-dmf
sample.long.one
