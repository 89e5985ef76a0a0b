pminfo -D 5x
