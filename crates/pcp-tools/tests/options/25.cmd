pminfo -N
