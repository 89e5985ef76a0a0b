#!/usr/bin/env python3
"""Make damaged copies of small archives for pmdumplog's golden tests."""
import os, shutil, struct, sys
src, out = sys.argv[1], sys.argv[2]   # dir with v3.*, events3.*, multi3.*; output dir
os.makedirs(out, exist_ok=True)
def records(buf, label):
    at = label; recs = []
    while at + 4 <= len(buf):
        n = struct.unpack('>I', buf[at:at+4])[0]
        recs.append((at, n)); at += n
    return recs
def copy(base, new, skip=()):
    for suffix in ('.meta', '.index') + tuple('.%d' % i for i in range(9)):
        p = os.path.join(src, base + suffix)
        if os.path.exists(p) and suffix not in skip:
            shutil.copy(p, os.path.join(out, new + suffix))
def vol(new, n=0):
    return os.path.join(out, '%s.%d' % (new, n))
# flipped length word: the third record's header length no longer matches its trailer
copy('v3', 'badlen')
b = bytearray(open(vol('badlen'), 'rb').read()); r = records(b, 808)
b[r[2][0] + 3] ^= 0x10; open(vol('badlen'), 'wb').write(b)
# a value set with an impossible valfmt in the second record
copy('v3', 'badfmt')
b = bytearray(open(vol('badfmt'), 'rb').read()); r = records(b, 808)
at = r[1][0] + 4 + 12 + 4          # first value set: pmid, numval, valfmt
b[at + 8:at + 12] = struct.pack('>i', 7); open(vol('badfmt'), 'wb').write(b)
# the third record's timestamp before the second's (out of time order)
copy('v3', 'backwards')
b = bytearray(open(vol('backwards'), 'rb').read()); r = records(b, 808)
sec_lo = struct.unpack('>I', b[r[1][0] + 4:r[1][0] + 8])[0]
b[r[2][0] + 4:r[2][0] + 8] = struct.pack('>I', sec_lo - 1); open(vol('backwards'), 'wb').write(b)
# cut inside the first record: the end cannot be found
copy('v3', 'noend')
b = open(vol('noend'), 'rb').read()[:808 + 40]; open(vol('noend'), 'wb').write(b)
# the middle volume missing; the last volume only a label
copy('multi3', 'gaps', skip=('.2',))
b = open(vol('gaps', 4), 'rb').read()[:808]; open(vol('gaps', 4), 'wb').write(b)
# event arrays that fail libpcp's check: one "missed" record with other
# flags set, and a parameter whose length runs past its value
copy('events3', 'badevent')
b = bytearray(open(vol('badevent'), 'rb').read()); r = records(b, 808)
rec = r[1]; p = rec[0] + 4 + 12 + 4
pmid, numval, valfmt = struct.unpack('>Iii', b[p:p + 12])
assert pmid == 0x740008b and numval == 2, hex(pmid)
blocks = [rec[0] + 4 + struct.unpack('>i', b[p + 12 + 8 * j + 4:p + 12 + 8 * j + 8])[0] * 4 - 12 for j in range(2)]
# highres record: block header 4, nrecords 4, then sec 8, nsec 8, flags 4, nparams 4
b[blocks[0] + 24:blocks[0] + 28] = struct.pack('>I', 0x80000001)
first_param = blocks[1] + 8 + 24
word = struct.unpack('>I', b[first_param + 4:first_param + 8])[0]
b[first_param + 4:first_param + 8] = struct.pack('>I', (word & 0xff000000) | 0x400)
open(vol('badevent'), 'wb').write(b)
# a 64-bit value whose block has its type byte unset (libpcp leaves its
# bytes as recorded, so it prints them read in host order)
copy('v3', 'vtype0')
b = bytearray(open(vol('vtype0'), 'rb').read()); r = records(b, 808)
rec = r[1]; p = rec[0] + 4 + 12
numpmid = struct.unpack('>i', b[p:p + 4])[0]; p += 4
for _ in range(numpmid):
    pmid, numval = struct.unpack('>Ii', b[p:p + 8])
    if numval <= 0:
        p += 8
        continue
    valfmt = struct.unpack('>i', b[p + 8:p + 12])[0]
    if pmid == (29 << 22) | 101:
        idx = struct.unpack('>i', b[p + 16:p + 20])[0]
        b[rec[0] + 4 + idx * 4 - 12] = 0
    p += 12 + 8 * numval
open(vol('vtype0'), 'wb').write(b)
# results holding metrics the metadata does not describe: pmcd.pid (a
# 32-bit value in place) and sample.ulonglong.million (a 64-bit block)
# renumbered
copy('v3', 'nodesc')
b = bytearray(open(vol('nodesc'), 'rb').read()); r = records(b, 808)
for rec in r:
    p = rec[0] + 4 + 12
    numpmid = struct.unpack('>i', b[p:p + 4])[0]; p += 4
    for _ in range(numpmid):
        pmid, numval = struct.unpack('>Ii', b[p:p + 8])
        if pmid in ((2 << 22) | 23, (29 << 22) | 101):
            b[p:p + 4] = struct.pack('>I', pmid + 900)
        p += 8 if numval <= 0 else 12 + 8 * numval
open(vol('nodesc'), 'wb').write(b)
# feature bits 6.0.3 does not know (30 and 0) set in every file's label
copy('v3', 'features')
for suffix in ('.0', '.meta', '.index'):
    path = os.path.join(out, 'features' + suffix)
    b = bytearray(open(path, 'rb').read())
    b[28:32] = struct.pack('>I', 0x40000001)
    open(path, 'wb').write(b)
# a zoneinfo field naming another zone than the timezone field does
# (Melbourne, in summer time at the archive's date, where the timezone
# says UTC): libpcp's -z takes the timezone field
copy('v3', 'zoneinfo')
for suffix in ('.0', '.meta', '.index'):
    path = os.path.join(out, 'zoneinfo' + suffix)
    b = bytearray(open(path, 'rb').read())
    zone = b':Australia/Melbourne'
    b[548:548 + 256] = zone + bytes(256 - len(zone))
    open(path, 'wb').write(b)
# the last record's seconds word 0xffffffff (a time in 2106): pmval's
# sample count overflows C's int, and PCP counts no samples
copy('v3', 'lateend')
b = bytearray(open(vol('lateend'), 'rb').read()); r = records(b, 808)
b[r[-1][0] + 4:r[-1][0] + 8] = struct.pack('>I', 0xffffffff); open(vol('lateend'), 'wb').write(b)
# the temporal index's first entry points past the end of volume 0
# (1640 bytes): libpcp's pmFetchArchive skips to volume 1
copy('multi3', 'farindex')
b = bytearray(open(os.path.join(out, 'farindex.index'), 'rb').read())
b[808 + 28:808 + 32] = struct.pack('>I', 100000); open(os.path.join(out, 'farindex.index'), 'wb').write(b)
# .meta records that libpcp's __pmLogLoadMeta reads in its own way: the
# n-th record of a type in v3.meta, changed in place
def meta_record(new, rtype, nth=0):
    b = bytearray(open(os.path.join(out, new + '.meta'), 'rb').read())
    recs = [(at, n) for at, n in records(b, 808) if struct.unpack('>I', b[at + 4:at + 8])[0] == rtype]
    return b, recs[nth]
def meta_put(new, b):
    open(os.path.join(out, new + '.meta'), 'wb').write(b)
# an instance domain record (the first) with an instance count of -1:
# opens, with no instance set from that record
copy('v3', 'metanoinst')
b, (at, n) = meta_record('metanoinst', 5)
b[at + 24:at + 28] = struct.pack('>i', -1); meta_put('metanoinst', b)
# a negative instance identifier in the first instance domain record:
# PM_ERR_LOGREC
copy('v3', 'metanegid')
b, (at, n) = meta_record('metanegid', 5)
b[at + 28:at + 32] = struct.pack('>i', -7); meta_put('metanegid', b)
# a help-text record (the first) whose type word has no text class (4,
# PM_TEXT_PMID alone): libpcp skips it without reading its trailing length
# word, then reads that word as the next record's length (PM_ERR_RECTYPE)
copy('v3', 'metatextty')
b, (at, n) = meta_record('metatextty', 4)
b[at + 8:at + 12] = struct.pack('>I', 4); meta_put('metatextty', b)
# a help-text record (the first) whose type word has PM_TEXT_DIRECT too:
# kept where no lookup finds it (pminfo -T falls back to the one-line text)
copy('v3', 'metadirect')
b, (at, n) = meta_record('metadirect', 4)
ty = struct.unpack('>I', b[at + 8:at + 12])[0]
b[at + 8:at + 12] = struct.pack('>I', ty | 16); meta_put('metadirect', b)
# a descriptor record (the third) whose first name length is one short:
# the trailing length word is then not where libpcp looks (PM_ERR_LOGREC)
copy('v3', 'metaname')
b, (at, n) = meta_record('metaname', 1, 2)
ln = struct.unpack('>I', b[at + 32:at + 36])[0]
b[at + 32:at + 36] = struct.pack('>I', ln - 1); meta_put('metaname', b)
# a descriptor record (the third) with both length words 4 more than its
# size: libpcp reads a descriptor by its contents, and opens the archive
copy('v3', 'metadesclen')
b, (at, n) = meta_record('metadesclen', 1, 2)
b[at:at + 4] = struct.pack('>I', n + 4); b[at + n - 4:at + n] = struct.pack('>I', n + 4)
meta_put('metadesclen', b)
# the temporal index's first entry names volume -1, which no volume is:
# libpcp's pmSetMode then fails to position, and each pmFetch reads on
# from where the one before it stopped (indexvol from v3, indexvolm from
# multi3, whose later entries name the last volume)
for base, new in (('v3', 'indexvol'), ('multi3', 'indexvolm')):
    copy(base, new)
    b = bytearray(open(os.path.join(out, new + '.index'), 'rb').read())
    b[808 + 12:808 + 16] = struct.pack('>i', -1); open(os.path.join(out, new + '.index'), 'wb').write(b)
# the first label record (the context's) with its set's label count -1,
# an error code: libpcp keeps the set, and merging passes over it (pminfo
# -l prints no labels where no other set has any)
copy('v3', 'labelneg')
b, (at, n) = meta_record('labelneg', 7)
jsonlen = struct.unpack('>I', b[at + 36:at + 40])[0]   # header, time, type, ident, count, instance
b[at + 40 + jsonlen:at + 44 + jsonlen] = struct.pack('>i', -1); meta_put('labelneg', b)
# the first instance domain record of events2 with its microseconds word
# 0xffffffff: libpcp multiplies by 1000 in 32 bits (-1000 nanoseconds),
# and pmdumplog -I prints the time from that (-00001 microseconds)
copy('events2', 'indomusec')
b = bytearray(open(os.path.join(out, 'indomusec.meta'), 'rb').read())
at = [at for at, n in records(b, 132) if struct.unpack('>I', b[at + 4:at + 8])[0] == 2][0]
b[at + 12:at + 16] = struct.pack('>I', 0xffffffff); meta_put('indomusec', b)
# the eleventh descriptor of v3 with its type word 6 (a delta instance
# domain record): libpcp loads it as one, and pmdumplog -I prints it with
# the nanoseconds word as a negative int (-00000001)
copy('v3', 'desctype6')
b, (at, n) = meta_record('desctype6', 1, 10)
b[at + 4:at + 8] = struct.pack('>I', 6); meta_put('desctype6', b)
# the second descriptor given the first's PMID (a different type), and a
# later label record's JSON length -1: libpcp adds each record as it reads
# it, so the conflict (PM_ERR_LOGCHANGETYPE) ends the reading before the
# record that does not decode (PM_ERR_LOGREC)
copy('v3', 'descconflict')
b, (at, n) = meta_record('descconflict', 1, 1)
b0, (at0, n0) = meta_record('descconflict', 1, 0)
b[at + 8:at + 12] = b0[at0 + 8:at0 + 12]
_, (lat, ln) = meta_record('descconflict', 7)
b[lat + 36:lat + 40] = struct.pack('>i', -1); meta_put('descconflict', b)
