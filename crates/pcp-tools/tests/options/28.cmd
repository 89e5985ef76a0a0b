pmprobe --ver
