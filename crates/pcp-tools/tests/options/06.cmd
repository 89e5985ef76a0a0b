pminfo -x -q
