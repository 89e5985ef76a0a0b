pmprobe --version
