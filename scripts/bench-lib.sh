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
