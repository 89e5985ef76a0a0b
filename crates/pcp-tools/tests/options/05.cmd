pminfo -b x -D pdu,fetch
