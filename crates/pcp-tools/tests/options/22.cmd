pminfo -Vq
