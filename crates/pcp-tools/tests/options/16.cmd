PCP_DEBUG=junk pminfo -V
