pminfo -D junk
