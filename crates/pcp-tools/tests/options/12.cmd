pminfo --bogus=1
