PCP_SAMPLES=x pminfo
