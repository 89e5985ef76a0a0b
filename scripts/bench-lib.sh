# Shared by the benchmark scripts (sourced, not run): the tools to time and
# how to time them. The caller sets $runs and $work.

# $ours: the directory of our tools; OURS=DIR names a build, else the
# release build is made here
ours=${OURS:-}
if [ -z "$ours" ]; then
    cargo build -q --release -p pcp-tools
    ours=${CARGO_TARGET_DIR:-target}/release
fi

# the best wall time of $runs runs, that run's peak RSS, and the least CPU
# time (user + system) of the runs: "secs kb cpu"
measure() {
    local best="" kb="" cpu="" s m u y c
    for _ in $(seq "$runs"); do
        /usr/bin/time -o "$work/t" -f "%e %M %U %S" "$@" >/dev/null 2>&1 || true
        read -r s m u y <"$work/t"
        if [ -z "$best" ] || awk "BEGIN{exit !($s < $best)}"; then best=$s; kb=$m; fi
        c=$(awk -v u="$u" -v y="$y" 'BEGIN{printf "%.2f", u + y}')
        if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
    done
    echo "$best $kb $cpu"
}

# Put the files of each archive named (its base name) in the page cache as
# reading them from disk leaves them: in large folios, by read-ahead. A
# volume pmlogger has just written is cached in 4 KB pages, which the kernel
# copies out about 1.4x more slowly (measured on a 240 MB volume), for PCP's
# tools and ours alike; so a benchmark over `big` right after making it
# would measure something else than one after a reboot. Written-back and
# evicted first with fsync and posix_fadvise, which need no privileges.
cache_as_read() {
    python3 - "$@" <<'PY'
import glob, os, sys
for base in sys.argv[1:]:
    for f in glob.glob(glob.escape(base) + ".*"):
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            while os.read(fd, 1 << 20):
                pass
        finally:
            os.close(fd)
PY
}

# The >= 100 MB plain archive the benchmarks default to, made once (about a
# minute: pmlogger recording scripts/busy-pmlogger.config from pmcd, which
# needs the sample PMDA); prints its name.
make_big() {
    local dir=/tmp/pcp-rs-bench
    if [ ! -f "$dir/big.meta" ]; then
        mkdir -p "$dir"
        cp scripts/busy-pmlogger.config "$dir/config"
        # (PCP's default derived metrics can stall pmlogger: none here,
        # whoever calls this)
        (cd "$dir" && PCP_DERIVED_CONFIG= pmlogger -V 3 -c config -T 60sec big >/dev/null 2>&1 || true)
    fi
    echo "$dir/big"
}
