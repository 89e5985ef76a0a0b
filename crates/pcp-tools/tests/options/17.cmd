PCP_INTERVAL=junk pminfo
