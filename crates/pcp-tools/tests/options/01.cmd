pminfo -V
