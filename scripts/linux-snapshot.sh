#!/usr/bin/env bash
# Copy the /proc and /sys files the pcp-linux metrics read into DIR, laid
# out as under / (the snapshot a LinuxSource or the PCP Linux PMDA, with
# LINUX_STATSPATH=DIR, can read), plus DIR/statfs with statfs(2) of each
# mounted block-device and memory (tmpfs) file system (`stat -f`: path bsize blocks bfree
# bavail files ffree). The process list is cut to the first NPIDS pids
# (default 5): proc.nprocs counts only directories. The host and domain
# names are there for a local context's host name and labels.
#
#   bash scripts/linux-snapshot.sh DIR [NPIDS]
set -euo pipefail
dir=${1:?usage: linux-snapshot.sh DIR [NPIDS]}
npids=${2:-5}
mkdir -p "$dir"
copy() { # copy a readable file, keeping its path
    local f=$1
    [ -r "$f" ] || return 0
    mkdir -p "$dir$(dirname "$f")"
    cat "$f" > "$dir$f" 2>/dev/null || rm -f "$dir$f"
}
for f in /proc/stat /proc/meminfo /proc/loadavg /proc/uptime /proc/vmstat /proc/net/snmp \
         /proc/diskstats /proc/partitions /proc/net/dev /proc/zoneinfo \
         /sys/devices/system/cpu/possible \
         /proc/sys/kernel/hostname /proc/sys/kernel/domainname \
         /proc/sys/kernel/osrelease /proc/sys/kernel/version /proc/sys/kernel/ostype /proc/sys/kernel/arch \
         /proc/net/netstat /proc/net/snmp6 /proc/pressure/cpu /proc/pressure/memory /proc/pressure/io \
         /proc/pressure/irq /proc/sys/kernel/random/entropy_avail /proc/sys/kernel/random/poolsize \
         /proc/sys/kernel/pid_max /proc/sys/kernel/pty/nr /proc/sys/fs/file-nr /proc/sys/fs/inode-state \
         /proc/sys/fs/dentry-state /proc/sys/fs/aio-nr /proc/sys/fs/aio-max-nr \
         /proc/net/sockstat /proc/net/sockstat6 /proc/net/softnet_stat /proc/interrupts /proc/softirqs \
         /proc/cpuinfo /sys/devices/system/cpu/online /proc/locks \
         /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6 /proc/net/raw /proc/net/raw6 /proc/net/unix \
         /proc/tty/driver/serial /sys/kernel/mm/ksm/* /proc/buddyinfo /sys/kernel/uevent_seqnum /proc/slabinfo; do
    copy "$f"
done
# the NUMA nodes and their CPUs (directories that the PMDA lists), and the
# CPUs' sysfs attributes
for n in /sys/devices/system/node/node*; do
    [ -d "$n" ] || continue
    for c in "$n"/cpu[0-9]*; do
        [ -e "$c" ] && mkdir -p "$dir$c" && : > "$dir$c/.keep"
    done
    copy "$n/meminfo"
    copy "$n/numastat"
done
for c in /sys/devices/system/cpu/cpu[0-9]*; do
    for a in online thermal_throttle/core_throttle_count thermal_throttle/core_throttle_total_time_ms \
             thermal_throttle/package_throttle_count thermal_throttle/package_throttle_total_time_ms \
             cpufreq/stats/time_in_state cpufreq/cpuinfo_max_freq cpufreq/cpuinfo_min_freq cpufreq/scaling_cur_freq; do
        copy "$c/$a"
    done
done
mkdir -p "$dir/proc/self"
cat /proc/self/mounts > "$dir/proc/self/mounts"
for b in /sys/block/*; do
    n=${b##*/}
    copy "/sys/block/$n/queue/scheduler"
    copy "/sys/block/$n/dm/name"
    copy "/sys/block/$n/device/wwid"
    copy "/sys/block/$n/wwid"
    for a in io_stat mm_stat bd_stat disksize; do
        copy "/sys/block/$n/$a"
    done
done
for i in /sys/class/net/*; do
    n=${i##*/}
    mkdir -p "$dir/sys/class/net/$n"
    for a in mtu speed duplex flags type operstate address; do
        copy "/sys/class/net/$n/$a"
    done
    if [ -d "/sys/class/net/$n/wireless" ]; then
        mkdir -p "$dir/sys/class/net/$n/wireless" && : > "$dir/sys/class/net/$n/wireless/.keep"
    fi
    if [ -d "/sys/devices/virtual/net/$n" ]; then
        mkdir -p "$dir/sys/devices/virtual/net/$n" && : > "$dir/sys/devices/virtual/net/$n/.keep"
    fi
done
for p in $(ls /proc | grep '^[0-9]' | sort -n | head -n "$npids"); do
    mkdir -p "$dir/proc/$p" && : > "$dir/proc/$p/.keep"
done
: > "$dir/statfs"
awk '$1 ~ "^/dev" || $2 == "/" || $3 == "tmpfs" {print $2}' /proc/self/mounts | sort -u | while read -r m; do
    stat -f -c '%n %s %b %f %a %c %d' "$m" >> "$dir/statfs"
done
