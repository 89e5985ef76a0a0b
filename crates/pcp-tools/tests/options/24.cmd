pminfo -mtq -b
