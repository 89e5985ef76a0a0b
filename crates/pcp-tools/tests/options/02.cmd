pminfo -z -Z UTC
