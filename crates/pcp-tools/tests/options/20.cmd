pminfo --=x
