pminfo --h
