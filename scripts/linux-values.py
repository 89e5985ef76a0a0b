#!/usr/bin/env python3
"""Values of the Linux metrics, ours against PCP's Linux PMDA under pmcd,
by semantics, in a way that does not depend on timing.

Each attempt is a sandwich: one fetch of every metric by us (ours1), one by
pmcd (`pminfo -f -h local:`), one by us again (ours2), each a fresh
process. What pmcd read lies in time between what we read, so:

- instance lists: pmcd's is ours1's or ours2's (instances may come and go
  between, then a later attempt settles it);
- counters: ours1 <= pmcd <= ours2 (a 32-bit counter that wraps between
  ours1 and ours2 passes on either side of the wrap); the CPU iowait
  counters may stand above ours2 by the PMDA's WAITIO slop, 100 ticks
  (the kernel's iowait steps back a little at times, and the PMDA, a
  long-running process, holds its last value until the kernel catches up,
  which our fresh processes have no last value to do);
- discrete values: pmcd's equals ours1's or ours2's;
- instant values: within [min, max] of ours1 and ours2, widened by the
  metric's tolerance (TOLERANCE below says why each is what it is).

A value that fails is tried again in the next attempt (up to --attempts);
the check fails only for a value that no attempt settles. A wrong field,
unit or computation fails every attempt; a value that merely moved
between the fetches settles in one of them.

  linux-values.py [--attempts N] [--report] [--insts I,J...] OURS NAMES TABLE

OURS is the linux_metrics example, NAMES its `names` output, TABLE its
`table` output. --report prints every unsettled value's distance outside
its bracket after each attempt (to calibrate the tolerances). --insts
compares only the instances with those identifiers (and values without
an instance): scripts/proc-ci.sh checks the processes that outlive the
check this way.
"""
import re
import subprocess
import sys

MIB_KB = 1024  # one MiB in the Kbyte units of mem.util.*


def tolerance(name, sem, lo, hi, ctx):
    """How far outside [lo, hi] an instant value of `name` may be."""
    # Scheduler and queue occupancy: kernel.all.running / blocked /
    # runnable and the disks' inflight sample what is running, waiting or
    # in flight at one instant; two samples a few milliseconds apart need
    # not be related at all. Checked to be a count no larger than twice the
    # number of threads (running, blocked, runnable) or the block layer's
    # largest queue depth, 4096 (in flight).
    if name in ("kernel.all.running", "kernel.all.blocked", "kernel.all.runnable"):
        return ctx["threads"]
    if name.endswith(".inflight"):
        return 4096
    # Threads and processes: other jobs on a shared machine (cargo builds,
    # each rustc starting and ending a dozen or more threads) come and go
    # between the fetches; one that lived only inside the bracket is seen
    # by pmcd alone. 2 was the farthest seen at a load of 11; 64.
    if name in ("kernel.all.nprocs", "proc.nprocs"):
        return 64
    # The processor a process last ran on, and the run queue's counts of
    # processes in each state: samples of one instant, as above.
    if name == "proc.psinfo.processor":
        return ctx["threads"]
    if name.startswith("proc.runq."):
        return ctx["threads"]
    # Memory and file systems: other jobs allocate and free memory, and
    # write and delete files, between the fetches; what came and went
    # inside the bracket is seen by pmcd alone. Measured at a load of 11
    # on 2 cores (cargo builds), the farthest outside in 40 sandwiches
    # was 10 MB (mem.util.anonpages) and 0.4 MB (filesys.free): 64 MiB
    # is six times that, in the metric's units (Kbyte, or byte for swap.*
    # and the *Bytes metrics), and every attempt must miss for a failure.
    if name.startswith("mem.") or name.startswith("swap.") or name in ("filesys.used", "filesys.free",
                                                                        "filesys.avail"):
        in_bytes = name.startswith("swap.") or name.endswith("Bytes")
        return 64 * MIB_KB * (1024 if in_bytes else 1)
    # Inodes: 48 was the farthest seen; a thousand. filesys.full (a
    # percentage): half a point.
    if name in ("filesys.usedfiles", "filesys.freefiles"):
        return 1000
    if name == "filesys.full":
        return 0.5
    # Sockets and open files: pmcd's own client connection (a unix stream
    # socket pair, and the PMDA's open files) exists only while pmcd's
    # fetch is made, and other jobs open and close them between the
    # fetches: two were seen (network.unix.stream.*) and 16 files
    # (vfs.files.count); 64 sockets, 1024 files and locks. The kernel's
    # dentry and inode caches grow and shrink by thousands with any build
    # running: a million.
    if name.startswith(("network.unix.", "network.tcpconn", "network.udpconn", "network.rawconn",
                        "network.sockstat.")):
        return 64
    if name.startswith(("vfs.files.", "vfs.locks.", "vfs.aio.")):
        return 1024
    if name.startswith(("vfs.inodes.", "vfs.dentry.")):
        return 1 << 20
    # Pressure stall averages (percentages) are recomputed every two
    # seconds: a quarter of the scale.
    if name.startswith("kernel.all.pressure.") and name.endswith(".avg"):
        return 25
    # Everything else that is instant changes monotonically or not at all
    # within a few seconds (uptime, idle time, the last PID, interface
    # state, MTU, block size, read-only flag, load averages, which the
    # kernel updates every 5 seconds): no slack.
    return 0


def load(text):
    out, cur = {}, None
    for line in text.splitlines():
        if not line:
            continue
        if not line.startswith(" ") and not line.startswith("No value") and not line.startswith("Error"):
            cur = line
            out[cur] = {}
            continue
        m = re.match(r'    inst \[(-?\d+) or "(.*)"\] value (.*)$', line)
        if m:
            out[cur][(int(m.group(1)), m.group(2))] = m.group(3)
        elif line.startswith("    value "):
            out[cur][None] = line[len("    value "):]
        else:
            out[cur]["msg"] = line
    return out


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    return r.stdout.decode("utf-8", "replace")


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def check(name, sem, ty, pv, a, b, ctx):
    """None when pmcd's value pv agrees with ours a (before) and b
    (after), else how it does not."""
    if pv in (a, b):
        return None
    x, lo, hi = num(pv), num(a), num(b)
    if x is None or lo is None or hi is None:
        return f"pmcd {pv} ours {a} / {b}"
    if sem == "counter":
        if lo <= x <= hi:
            return None
        if lo > hi and ty in ("U32", "32") and (x >= lo or x <= hi):
            return None  # a 32-bit counter wrapped between ours1 and ours2
        if ".cpu.wait.total" in name or name.endswith("cpu.wait"):
            slop = 100 * 1000 / ctx["hz"]  # 100 ticks, in milliseconds
            if lo <= x <= hi + slop:
                return None
        return f"counter: pmcd {pv} outside ours [{a}, {b}]"
    if sem == "discrete":
        return f"discrete: pmcd {pv} ours {a} / {b}"
    lo, hi = min(lo, hi), max(lo, hi)
    tol = tolerance(name, sem, lo, hi, ctx)
    if lo - tol <= x <= hi + tol:
        return None
    return f"instant: pmcd {pv} outside ours [{lo:g}, {hi:g}] widened by {tol:g}"


def main():
    args = sys.argv[1:]
    attempts, report, insts = 5, False, None
    while args and args[0].startswith("--"):
        if args[0] == "--attempts":
            attempts = int(args[1])
            args = args[2:]
        elif args[0] == "--insts":
            insts = {int(i) for i in args[1].split(",")}
            args = args[2:]
        elif args[0] == "--report":
            report = True
            args = args[1:]
        else:
            sys.exit(f"unknown option {args[0]}")
    ours, names_file, table_file = args
    names = [line.strip() for line in open(names_file) if line.strip()]
    sem = {}
    for line in open(table_file):
        name, s, ty = line.rstrip("\n").split("\t")
        sem[name] = (s, ty)

    unsettled = None  # {(name, key): reason}; None before the first attempt
    checked = 0
    ctx = None
    for attempt in range(1, attempts + 1):
        wanted = names if unsettled is None else sorted({n for n, _ in unsettled})
        o1 = load(run([ours, "fetch"] + wanted))
        p = load(run(["pminfo", "-f", "-h", "local:"] + wanted))
        o2 = load(run([ours, "fetch"] + wanted))
        if insts is not None:
            keep = lambda vals: {k: v for k, v in vals.items() if not isinstance(k, tuple) or k[0] in insts}
            o1, p, o2 = ({n: keep(v) for n, v in d.items()} for d in (o1, p, o2))
        if ctx is None:
            fixed = load(run([ours, "fetch", "kernel.all.nprocs", "kernel.all.hz"]))
            single = lambda m: num(fixed.get(m, {}).get(None)) or 0
            ctx = {
                # the threads now, with room for as many again
                "threads": int(2 * single("kernel.all.nprocs")),
                "hz": int(single("kernel.all.hz")) or 100,
            }
        now = {}
        for name in wanted:
            s, ty = sem[name]
            a, pv, b = o1.get(name, {}), p.get(name), o2.get(name, {})
            if pv is None:
                now[(name, "?")] = "pmcd printed no such metric"
                continue
            if set(pv) != set(a) and set(pv) != set(b):
                now[(name, "instances")] = (f"instances differ: ours {sorted(map(str, a))} / "
                                            f"{sorted(map(str, b))} pmcd {sorted(map(str, pv))}")
                continue
            for key, v in pv.items():
                if unsettled is not None and (name, key) not in unsettled and (name, "instances") not in unsettled:
                    continue
                if unsettled is None:
                    checked += 1
                why = check(name, s, ty, v, a.get(key), b.get(key), ctx)
                if why:
                    now[(name, key)] = why
        unsettled = now
        print(f"values: attempt {attempt}: {len(unsettled)} values unsettled")
        if report:
            for (name, key), why in sorted(unsettled.items(), key=str):
                print(f"    {name} {key}: {why}")
        if not unsettled:
            break
    for (name, key), why in sorted(unsettled.items(), key=str):
        print(f"values: {name} {key}: {why}")
    print(f"values: {checked} values of {len(names)} metrics compared, "
          f"{len(unsettled)} outside their semantics' bounds after {attempt} attempt(s)")
    sys.exit(1 if unsettled else 0)


if __name__ == "__main__":
    main()
