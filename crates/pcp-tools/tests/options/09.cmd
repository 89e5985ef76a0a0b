pminfo -S x
