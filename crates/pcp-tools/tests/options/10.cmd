pminfo --origin
