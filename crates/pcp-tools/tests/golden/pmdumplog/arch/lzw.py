#!/usr/bin/env python3
"""Write a file in the old Unix compress (.Z, LZW) format: 16-bit codes,
block mode, codes in groups of eight padded out when the width grows."""
import sys
def compress(data, max_bits=16):
    out = bytearray([0x1f, 0x9d, 0x80 | max_bits])
    buf = 0; n = 0; in_group = 0
    def emit(code, width):
        nonlocal buf, n, in_group
        buf |= code << n; n += width; in_group = (in_group + 1) % 8
        while n >= 8:
            out.append(buf & 0xff); buf >>= 8; n -= 8
    def pad(width):
        while in_group != 0:
            emit(0, width)
    table = {}; n_bits = 9; free_ent = 257; maxcode = 511
    if not data:
        return bytes(out)
    w = data[0]
    for c in data[1:]:
        if (w, c) in table:
            w = table[(w, c)]; continue
        emit(w, n_bits)
        if free_ent > maxcode:
            pad(n_bits); n_bits += 1
            maxcode = (1 << max_bits) if n_bits == max_bits else (1 << n_bits) - 1
        if free_ent < (1 << max_bits):
            table[(w, c)] = free_ent; free_ent += 1
        w = c
    emit(w, n_bits)
    if n > 0:
        out.append(buf & 0xff)
    return bytes(out)
src, dst = sys.argv[1], sys.argv[2]
open(dst, 'wb').write(compress(open(src, 'rb').read()))
