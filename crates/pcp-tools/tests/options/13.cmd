pminfo -z
