pminfo -h a -h b
