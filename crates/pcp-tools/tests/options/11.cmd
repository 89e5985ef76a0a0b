pminfo --desc=1
