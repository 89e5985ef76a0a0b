#!/usr/bin/env python3
"""Archive metadata and temporal index mutants: pcp-rs's tools against PCP's.

    scripts/meta-mutants.py SEED [COUNT] [ARCHIVE ...]

Copies the fixture archives (v2, v3 and dyn of crates/pcp-archive/tests/
fixtures unless ARCHIVEs are given), changes one thing in each copy's
.meta or .index (a count, a length word, a record or text type, an
instance identifier or name offset, a label set's lengths, a metric name's
length, a temporal index entry's time, volume or offset, a cut), runs
pmdumplog, pminfo, pmprobe and pmval over it, ours (from
$CARGO_TARGET_DIR/debug, else target/debug) and PCP's, and reports every
run whose output or exit status differs. Exits 1 if any did.

Mutants on which libpcp 6.0.3 would read outside the buffers it reads a
record into (its checks do not cover every length: see model_load and
model_disk_indoms below, and label offsets outside their JSON) are not
run: what it prints then is whatever lay in memory. Nor are those whose
outcome in 6.0.3 is chance: a metric name length so large that read(2)
into the stack fails or not as the stack was placed, and a delta
instance domain record with no whole set before it (a "Botch" printing
heap addresses, where 6.0.3 does not crash).

Mutants of the kinds in KNOWN still differ (see there): they are left
out unless --all is given first.

--keep DIR keeps the mutants that differ in DIR (with a note of each
mutation) for a closer look.
"""

import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

FIXTURES = "crates/pcp-archive/tests/fixtures"

# .meta record types
DESC, INDOM_V2, LABEL_V2, TEXT, INDOM, INDOM_DELTA, LABEL = 1, 2, 3, 4, 5, 6, 7
MAXPATHLEN = 4096
PM_MAXLABELS = 255
PM_MAXLABELJSONLEN = 65535


def be32(b, at):
    return struct.unpack(">i", b[at:at + 4])[0]


def put32(b, at, v):
    b[at:at + 4] = struct.pack(">I", v & 0xFFFFFFFF)


class UB(Exception):
    """libpcp would read outside its buffer here."""


# Differences not fixed yet, as patterns (re.compile) of the mutation's
# note: none are known
KNOWN = []


def model_load(meta):
    """__pmLogLoadMeta as 6.0.3 reads `meta` (the whole file): 'ok', an
    error name, or raises UB where its reads leave the bytes it has."""
    label = be32(meta, 0)
    pos, size, numpmid = label, len(meta), 0
    whole = {}  # instance domain: the times of its whole sets so far
    while True:
        if pos + 8 > size:
            break
        hlen, htype = be32(meta, pos), be32(meta, pos + 4)
        pos += 8
        if hlen <= 0:
            return "LOGREC"
        rlen = hlen - 12
        if htype == DESC:
            numpmid += 1
            if pos + 24 > size:
                return "LOGREC"
            numnames = be32(meta, pos + 20)
            pos += 24
            for _ in range(max(numnames, 0)):
                if pos + 4 > size:
                    return "LOGREC"
                n = be32(meta, pos) & 0xFFFFFFFF
                pos += 4
                if min(n, size - pos) >= MAXPATHLEN:
                    raise UB("name overflows name[]")
                if n >= 1 << 31:
                    return "EFAULT"  # a read(2) of nearly 2^64 bytes
                if n >= 1 << 20 and pos + n > size:
                    # read(2) into name[] on the stack fails with EFAULT
                    # or not as the stack lies (address space layout
                    # randomisation): 6.0.3 answers one way or the other
                    raise UB("name length past the stack's reach")
                if pos + n > size:
                    return "LOGREC"
                pos += n
        elif htype in (INDOM_V2, INDOM, INDOM_DELTA, LABEL_V2, LABEL, TEXT):
            if rlen < 0:
                return "ENOMEM"
            if pos + rlen > size:
                return "LOGREC"
            buf = meta[pos:pos + rlen]
            pos += rlen
            if htype == TEXT:
                if rlen < 4:
                    raise UB("text type")
                ty = be32(buf, 0)
                if not ty & 3:
                    continue  # no trailer read
                if rlen < 8:
                    raise UB("text ident")
                if not ty & 12:
                    continue
                if 0 not in buf[8:]:
                    raise UB("text unterminated")
            elif htype in (LABEL_V2, LABEL):
                r = model_labels(buf, htype)
                if r != "ok":
                    return r
            else:
                r = model_indom(buf, htype)
                if r != "ok":
                    return r
                fixed = 16 if htype == INDOM_V2 else 20
                indom, n = be32(buf, fixed - 8), be32(buf, fixed - 4)
                if htype == INDOM_V2:
                    when = (be32(buf, 0), (be32(buf, 4) * 1000 + 2**31) % 2**32 - 2**31)
                else:
                    when = (((be32(buf, 4) & 0xFFFFFFFF) << 32 | (be32(buf, 0) & 0xFFFFFFFF)) - (2**64 if be32(buf, 4) < 0 else 0),
                            be32(buf, 8))
                if n > 0 and htype != INDOM_DELTA:
                    whole.setdefault(indom, []).append(when)
                elif n > 0 and not any(w < when for w in whole.get(indom, [])):
                    # a delta with no whole set before it: 6.0.3 prints a
                    # "Botch" with its addresses where it is looked up
                    # (or crashes)
                    raise UB("delta before any whole set")
        else:
            return "RECTYPE"
        if pos + 4 > size or be32(meta, pos) != hlen:
            return "LOGREC"
        pos += 4
    return "ok" if numpmid else "LOGREC"


def model_disk_indoms(meta):
    """pmdumplog -I's walk (dumpDiskInDom) over `meta` by the length
    words: raises UB where __pmLogLoadInDom would read past the bytes it
    read a record into."""
    label = be32(meta, 0)
    pos, size = label, len(meta)
    while pos + 8 <= size:
        hlen, htype = be32(meta, pos), be32(meta, pos + 4)
        pos += 8
        if hlen <= 0:
            return
        rlen = hlen - 12
        if htype in (INDOM_V2, INDOM, INDOM_DELTA):
            if rlen < 0 or pos + rlen > size:
                return  # out of memory, or cut short: an error
            buf = meta[pos:pos + rlen]
            fixed = 16 if htype == INDOM_V2 else 20
            if rlen < fixed:
                raise UB("-I: indom header")
            n = be32(buf, fixed - 4)
            if n > 0:
                if fixed + 8 * n > rlen:
                    raise UB("-I: instances")
                max_idx = rlen - fixed - 8 * n
                for i in range(n):
                    if be32(buf, fixed + 4 * i) < 0:
                        return
                    idx = be32(buf, fixed + 4 * (n + i))
                    if idx >= 0:
                        if idx > max_idx:
                            return
                        if 0 not in buf[fixed + 8 * n + idx:]:
                            raise UB("-I: name unterminated")
                    elif not (htype == INDOM_DELTA and idx == -1):
                        return
            pos += rlen
        elif rlen >= 0 or pos + rlen >= 0:
            pos += rlen
        if pos + 4 > size or be32(meta, pos) != hlen:
            return
        pos += 4


def model_indom(buf, htype):
    fixed = 16 if htype == INDOM_V2 else 20
    if len(buf) < fixed:
        raise UB("indom header")
    n = be32(buf, fixed - 4)
    if n <= 0:
        return "ok"
    if fixed + 8 * n > len(buf):
        raise UB("instances")
    max_idx = len(buf) - fixed - 8 * n
    names = buf[fixed + 8 * n:]
    for i in range(n):
        if be32(buf, fixed + 4 * i) < 0:
            return "LOGREC"
        idx = be32(buf, fixed + 4 * (n + i))
        if idx >= 0:
            if idx > max_idx:
                return "LOGREC"
            if 0 not in names[idx:]:
                raise UB("name unterminated")
        elif not (htype == INDOM_DELTA and idx == -1):
            return "LOGREC"
    return "ok"


def model_labels(buf, htype):
    k = 8 if htype == LABEL_V2 else 12

    def word():
        nonlocal k
        if k + 4 > len(buf):
            raise UB("label word")
        k += 4
        return be32(buf, k - 4)

    word()
    word()
    nsets = word()
    if nsets < 0:
        return "LOGREC"
    if nsets > 10000:
        raise UB("calloc of nsets")
    for _ in range(nsets):
        word()
        jsonlen = word()
        if jsonlen < 0 or jsonlen > PM_MAXLABELJSONLEN:
            return "LOGREC"
        if k + jsonlen > len(buf):
            raise UB("json")
        k += jsonlen
        nlabels = word()
        if nlabels > 0:
            if nlabels > PM_MAXLABELS or k + nlabels * 8 > len(buf):
                return "LOGREC"
            for _ in range(nlabels):
                name, namelen, _, value, valuelen = struct.unpack(">HBBHH", buf[k:k + 8])
                # merging the set (pminfo -l) reads each name and value
                # where its offset says, in a copy of the JSON and its NUL
                if name + namelen > jsonlen + 1 or value + valuelen > jsonlen + 1:
                    raise UB("label outside its JSON")
                k += 8
    return "ok"


def records(meta):
    """(offset, length, type) of each whole record after the label."""
    out, pos = [], be32(meta, 0)
    while pos + 8 <= len(meta):
        n, t = be32(meta, pos), be32(meta, pos + 4)
        if n < 12 or pos + n > len(meta):
            break
        out.append((pos, n, t))
        pos += n
    return out


def mutate_meta(r, meta):
    """One change to a copy of `meta`: (bytes, what)."""
    m = bytearray(meta)
    recs = records(meta)
    by_type = {}
    for rec in recs:
        by_type.setdefault(rec[2], []).append(rec)
    kinds = ["type", "len", "trailer", "cut", "desc", "desc", "name", "name", "indom", "indom", "indom",
             "label", "label", "label", "text", "text"]
    while True:
        kind = r.choice(kinds)
        if kind == "type":
            at, n, t = r.choice(recs)
            new = r.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 99, -1])
            put32(m, at + 4, new)
            return m, f"record at {at} (type {t}): type {new}"
        if kind == "len":
            at, n, t = r.choice(recs)
            new = r.choice([n - 4, n + 4, n - 1, n + 1, 0, -1, 8, 12, 4])
            put32(m, at, new)
            if r.random() < 0.5:
                put32(m, at + n - 4, new)
                return m, f"record at {at} (type {t}): both length words {new} (was {n})"
            return m, f"record at {at} (type {t}): length {new} (was {n})"
        if kind == "trailer":
            at, n, t = r.choice(recs)
            put32(m, at + n - 4, n + r.choice([-4, 4, 1]))
            return m, f"record at {at} (type {t}): trailing length changed"
        if kind == "cut":
            at, n, t = r.choice(recs)
            cut = at + r.randrange(n + 1)
            return m[:cut], f"cut at {cut} (in record at {at}, type {t})"
        if kind == "desc" and DESC in by_type:
            at, n, t = r.choice(by_type[DESC])
            nn = be32(m, at + 28)
            new = r.choice([-1, 0, nn - 1, nn + 1, -2147483648])
            put32(m, at + 28, new)
            return m, f"descriptor at {at}: {new} names (was {nn})"
        if kind == "name" and DESC in by_type:
            at, n, t = r.choice(by_type[DESC])
            if be32(m, at + 28) < 1:
                continue
            ln = be32(m, at + 32)
            new = r.choice([ln - 1, ln + 1, ln + 4, 0, ln - 4, n, 5000, -1])
            put32(m, at + 32, new)
            return m, f"descriptor at {at}: first name length {new} (was {ln})"
        if kind == "indom":
            ok = [rec for t in (INDOM_V2, INDOM, INDOM_DELTA) for rec in by_type.get(t, [])]
            if not ok:
                continue
            at, n, t = r.choice(ok)
            fixed = 16 if t == INDOM_V2 else 20
            body = at + 8
            ninst = be32(m, body + fixed - 4)
            what = r.choice(["count", "id", "idx", "delta"])
            if what == "count" or ninst < 1:
                new = r.choice([-1, 0, -5, ninst - 1, ninst + 1])
                put32(m, body + fixed - 4, new)
                return m, f"instance domain at {at}: {new} instances (was {ninst})"
            i = r.randrange(ninst)
            if what == "id":
                new = r.choice([-1, -5, 0x7FFFFFFF, -2147483648])
                put32(m, body + fixed + 4 * i, new)
                return m, f"instance domain at {at}: instance [{i}] identifier {new}"
            if what == "delta" and (t == INDOM_V2 or not any(be32(m, a + 8 + fixed - 8) == be32(m, body + fixed - 8) for a, _, _ in ok if a < at)):
                continue  # libpcp 6.0.3 crashes on a delta before any whole set
            if what == "delta":
                put32(m, at + 4, INDOM_DELTA)
                put32(m, body + fixed + 4 * (ninst + i), -1)
                return m, f"instance domain at {at}: a delta, instance [{i}] deleted"
            max_idx = n - 12 - fixed - 8 * ninst
            new = r.choice([-1, -2, max_idx, max_idx + 1, max_idx - 1, 1])
            put32(m, body + fixed + 4 * (ninst + i), new)
            return m, f"instance domain at {at}: instance [{i}] name offset {new} (room {max_idx})"
        if kind == "label":
            ok = [rec for t in (LABEL_V2, LABEL) for rec in by_type.get(t, [])]
            if not ok:
                continue
            at, n, t = r.choice(ok)
            k = at + 8 + (8 if t == LABEL_V2 else 12) + 8
            nsets = be32(m, k)
            what = r.choice(["nsets", "jsonlen", "nlabels", "label"])
            if what == "nsets" or nsets < 1:
                new = r.choice([-1, 0, nsets - 1, nsets + 1, -2147483648])
                put32(m, k, new)
                return m, f"labels at {at}: {new} sets (was {nsets})"
            # the first set
            jl = be32(m, k + 8)
            if what == "jsonlen":
                new = r.choice([-1, jl - 1, jl - 4, 0, jl + 1, PM_MAXLABELJSONLEN + 1])
                put32(m, k + 8, new)
                return m, f"labels at {at}: first set's JSON length {new} (was {jl})"
            nl_at = k + 12 + jl
            nl = be32(m, nl_at)
            if what == "nlabels" or nl < 1:
                new = r.choice([-1, 0, nl - 1, nl + 1, PM_MAXLABELS + 1, -12345])
                put32(m, nl_at, new)
                return m, f"labels at {at}: first set's label count {new} (was {nl})"
            # a label's name or value offset or length, outside the JSON
            j = r.randrange(nl)
            field = r.choice([(0, 2, "name offset"), (2, 1, "name length"), (4, 2, "value offset"), (6, 2, "value length")])
            off, width, name = field
            new = r.choice([jl, jl + 7, 0, 255, 1])
            b = nl_at + 4 + 8 * j + off
            m[b:b + width] = new.to_bytes(4, "big")[4 - width:]
            return m, f"labels at {at}: first set's label [{j}] {name} {new} (JSON of {jl})"
        if kind == "text" and TEXT in by_type:
            at, n, t = r.choice(by_type[TEXT])
            ty = be32(m, at + 8)
            new = r.choice([0, 4, 8, 1, 2, 16 | ty, ty & ~12, (ty & 12) | 0x100, 3 | 12, 0x7FFFFFFF])
            put32(m, at + 8, new)
            return m, f"help text at {at}: type {new:#x} (was {ty:#x})"


def mutate_index(r, index, version):
    m = bytearray(index)
    label = be32(index, 0)
    size = 32 if version == 3 else 20
    n = (len(index) - label) // size
    if n == 0:
        return m[:label + 3], "index cut into its first entry"
    i = 0 if r.random() < 0.6 else r.randrange(n)
    e = label + i * size
    vol_at = e + (12 if version == 3 else 8)
    data_at = e + (28 if version == 3 else 16)
    what = r.choice(["time", "time", "vol", "data", "data", "cut", "meta"])
    if what == "time":
        sec_at = e + 4 if version == 3 else e  # v3: low word of the seconds after the high
        sec = be32(m, sec_at)
        new = r.choice([sec + 1, sec - 1, sec + 100000, 0, -1, sec + 2])
        put32(m, sec_at, new)
        return m, f"index entry {i}: seconds {new} (was {sec})"
    if what == "vol":
        vol = be32(m, vol_at)
        new = r.choice([vol + 1, vol - 1, -1, 7, 100])
        put32(m, vol_at, new)
        return m, f"index entry {i}: volume {new} (was {vol})"
    if what == "data":
        off = be32(m, data_at)
        new = r.choice([off + 4, off - 4, 0, 100000, off + 1, 132, 808])
        put32(m, data_at, new)
        return m, f"index entry {i}: data offset {new} (was {off})"
    if what == "meta":
        off_at = data_at - (8 if version == 3 else 4)
        put32(m, off_at, r.choice([0, 999999, 4]))
        return m, f"index entry {i}: metadata offset changed"
    cut = e + r.randrange(size)
    return m[:cut], f"index cut at {cut} (in entry {i})"


def runs(a, metric, index):
    r = [
        ["pmdumplog", "-a", a],
        ["pmdumplog", "-dehiIl", a],
        ["pminfo", "-a", a, "-dflT"],
        ["pmprobe", "-a", a, "-v", "-I"],
        ["pmval", "-a", a, "-t", "1", metric],
    ]
    if index:
        # fetches from an origin just after the start, which a changed
        # first index entry can keep libpcp from positioning at
        r.append(["pmprobe", "-a", a, "-v", "-O", "+0.01"])
    return r


def run(cmd, bindir):
    env = dict(os.environ, PCP_DERIVED_CONFIG="", TZ="UTC", LC_ALL="C")
    exe = os.path.join(bindir, cmd[0]) if bindir else cmd[0]
    try:
        p = subprocess.run([exe] + cmd[1:], env=env, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return (b"", b"", "timeout")
    return (p.stdout, p.stderr, p.returncode)


def main():
    args = sys.argv[1:]
    keep = None
    everything = args[:1] == ["--all"]
    if everything:
        args = args[1:]
    if args[:1] == ["--keep"]:
        keep, args = args[1], args[2:]
    seed = int(args[0])
    count = int(args[1]) if len(args) > 1 else 150
    bases = args[2:] or [f"{FIXTURES}/{n}" for n in ("v2", "v3", "dyn")]
    bindir = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "debug")
    r = random.Random(seed)
    work = tempfile.mkdtemp()
    differ = skipped = done = known = 0
    try:
        originals = {}
        for b in bases:
            files = {}
            d = os.path.dirname(b) or "."
            stem = os.path.basename(b)
            for f in sorted(os.listdir(d)):
                if f.startswith(stem + ".") and f[len(stem) + 1:].split(".")[0] in ("meta", "index") + tuple("0123456789"):
                    files[f[len(stem) + 1:]] = open(os.path.join(d, f), "rb").read()
            pm = run(["pminfo", "-a", b], None)[0].split()
            metric = pm[min(2, len(pm) - 1)].decode() if pm else "sample.bin"
            originals[b] = (files, metric)
        for k in range(count):
            b = bases[k % len(bases)]
            files, metric = originals[b]
            files = dict(files)
            version = files["meta"][7]
            if r.random() < 0.7:
                files["meta"], what = mutate_meta(r, files["meta"])
                try:
                    model = model_load(files["meta"])
                    model_disk_indoms(files["meta"])
                except UB:
                    skipped += 1
                    continue
            else:
                files["index"], what = mutate_index(r, files["index"], version)
                model = "index"
            if not everything and any(p.search(what) for p in KNOWN):
                known += 1
                continue
            d = os.path.join(work, str(k))
            os.mkdir(d)
            for suffix, data in files.items():
                open(os.path.join(d, "a." + suffix), "wb").write(data)
            a = os.path.join(d, "a")
            bad = []
            for cmd in runs(a, metric, model == "index"):
                c, o = run(cmd, None), run(cmd, bindir)
                done += 1
                if c != o:
                    bad.append(" ".join(cmd).replace(a, "A"))
                    if keep is None and differ < 12:
                        sys.stderr.write(f"--- {' '.join(cmd)}: C status {c[2]}, ours {o[2]}\n")
                        for x, y in ((c[0], o[0]), (c[1], o[1])):
                            if x != y:
                                cl, ol = x.decode(errors="replace").splitlines(), y.decode(errors="replace").splitlines()
                                for j in range(max(len(cl), len(ol))):
                                    cj = cl[j] if j < len(cl) else "<none>"
                                    oj = ol[j] if j < len(ol) else "<none>"
                                    if cj != oj:
                                        sys.stderr.write(f"    C:    {cj}\n    ours: {oj}\n")
                                        break
            if bad:
                differ += 1
                sys.stderr.write(f"{os.path.basename(b)} mutant {k} ({what}; model {model}) differs: {'; '.join(bad)}\n")
                if keep is not None:
                    dest = os.path.join(keep, f"{os.path.basename(b)}-{seed}-{k}")
                    shutil.copytree(d, dest, dirs_exist_ok=True)
                    open(os.path.join(dest, "what"), "w").write(f"{what}\nmodel {model}\n" + "\n".join(bad) + "\n")
            shutil.rmtree(d)
    finally:
        shutil.rmtree(work)
    print(f"metadata and index mutants, seed {seed}: {done} runs over {count - skipped - known} mutants, "
          f"{differ} differ ({skipped} left out: libpcp reads outside its buffers or answers by chance; {known} of known differences)")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
