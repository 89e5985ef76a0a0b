#!/usr/bin/env python3
"""Make the label-less and late-label variants of the labels-v2/v3 fixtures.

    python3 variants.py        (in this directory)

nolabels-v2: labels-v2 without its label records, as an archive written
  before pmlogger logged labels (no .index: its offsets would be stale).
badhost-v2: nolabels-v2 with the host name in every file's label set to
  'bad"host', which does not make a valid JSON label.
late-v3: labels-v3 with every label record moved an hour later, and the
  host name in every file's label set to 100 'h' bytes.
huge-v3: labels-v3 with the label set of domain 29 replaced by one label
  whose value is a 65500-byte string, too long to merge with the others.
"""
import struct

LABEL_V2, LABEL_V3 = 3, 7


def frames(data):
    """(offset, length) of each framed record."""
    out, at = [], 0
    while at + 4 <= len(data):
        n = struct.unpack(">I", data[at:at + 4])[0]
        out.append((at, n))
        at += n
    return out


def set_host(data, v3, host):
    """The file with the host name of its leading label replaced."""
    at, size = (36, 256) if v3 else (24, 64)
    field = host + b"\0" * (size - len(host))
    return data[:at] + field + data[at + size:]


def meta(src, drop=False, shift=0):
    data = open(src, "rb").read()
    recs = frames(data)
    out = bytearray(data[:recs[0][1]])
    for at, n in recs[1:]:
        rec = bytearray(data[at:at + n])
        kind = struct.unpack(">I", rec[4:8])[0]
        if kind in (LABEL_V2, LABEL_V3):
            if drop:
                continue
            sec = struct.unpack(">I", rec[8:12])[0]
            rec[8:12] = struct.pack(">I", sec + shift)
        out += rec
    return bytes(out)


def huge_domain(src):
    """The .meta with domain 29's label set replaced by a huge one."""
    data = open(src, "rb").read()
    recs = frames(data)
    out = bytearray(data[:recs[0][1]])
    for at, n in recs[1:]:
        rec = data[at:at + n]
        kind, = struct.unpack(">I", rec[4:8])
        ltype, ident = struct.unpack(">II", rec[20:28]) if kind == LABEL_V3 else (0, 0)
        if ltype == 2 and ident == 29:
            value = b'"' + b"x" * 65500 + b'"'
            json = b'{"agent":' + value + b"}"
            label = struct.pack(">HBBHH", 2, 5, 2, 9, len(value))
            body = rec[4:24] + struct.pack(">II", ident, 1)
            body += struct.pack(">iI", -1, len(json)) + json + struct.pack(">I", 1) + label
            rec = struct.pack(">I", len(body) + 8) + body + struct.pack(">I", len(body) + 8)
        out += rec
    return bytes(out)


def write(name, data):
    open(name, "wb").write(data)


for base, v3, host in (("nolabels-v2", False, None), ("badhost-v2", False, b'bad"host')):
    m = meta("labels-v2.meta", drop=True)
    d = open("labels-v2.0", "rb").read()
    if host:
        m, d = set_host(m, v3, host), set_host(d, v3, host)
    write(base + ".meta", m)
    write(base + ".0", d)

host = b"h" * 100
write("late-v3.meta", set_host(meta("labels-v3.meta", shift=3600), True, host))
write("late-v3.0", set_host(open("labels-v3.0", "rb").read(), True, host))
write("late-v3.index", set_host(open("labels-v3.index", "rb").read(), True, host))

write("huge-v3.meta", huge_domain("labels-v3.meta"))
write("huge-v3.0", open("labels-v3.0", "rb").read())
