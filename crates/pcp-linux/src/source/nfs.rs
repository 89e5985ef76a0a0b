//! /proc/net/rpc/nfs and nfsd (`rpc.*`, `nfs.*`, `nfs3.*`, `nfs4.*`) and
//! /proc/fs/nfsd's pool files (`nfs.server.threads.*`).

use super::area::{Area, Reader};
use super::Options;
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

/// `CLUSTER_NET_NFS`.
const NFS: u32 = 7;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 1] = [NFS];
/// The NFS operations of each protocol: v2, v3, v4 client, v4 server.
const NFS_INDOM: u32 = 7;
const NFS3_INDOM: u32 = 8;
const NFS4_CLI_INDOM: u32 = 14;
const NFS4_SVR_INDOM: u32 = 15;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 4] = [NFS_INDOM, NFS3_INDOM, NFS4_CLI_INDOM, NFS4_SVR_INDOM];

/// The operations the PMDA names, by instance (the v4 server's from 1).
#[rustfmt::skip]
const NFS_OPS: [&str; 18] = [
    "null", "getattr", "setattr", "root", "lookup", "readlink", "read", "wrcache", "write",
    "create", "remove", "rename", "link", "symlink", "mkdir", "rmdir", "readdir", "statfs",
];
#[rustfmt::skip]
const NFS3_OPS: [&str; 22] = [
    "null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write", "create",
    "mkdir", "symlink", "mknod", "remove", "rmdir", "rename", "link", "readdir", "readdir+",
    "statfs", "fsinfo", "pathconf", "commit",
];

#[rustfmt::skip]
const NFS4_CLI_OPS: [&str; 56] = [
    "null", "read", "write", "commit", "open", "open_conf", "open_noat", "open_dgrd", "close",
    "setattr", "fsinfo", "renew", "setclntid", "confirm", "lock", "lockt", "locku", "access",
    "getattr", "lookup", "lookup_root", "remove", "rename", "link", "symlink", "create", "pathconf",
    "statfs", "readlink", "readdir", "server_caps", "delegreturn", "getacl", "setacl",
    "fs_locations", "rel_lkowner", "secinfo", "fsid_present", "exchange_id", "create_ses",
    "destroy_ses", "sequence", "get_lease_t", "reclaim_comp", "layoutget", "getdevinfo",
    "layoutcommit", "secinfononam", "test_stateid", "free_stateid", "getdevlist", "bind_ses",
    "destroy_clntid", "seek", "allocate", "deallocate",
];

#[rustfmt::skip]
const NFS4_SVR_OPS: [&str; 71] = [
    "op0-unused", "op1-unused", "op2-future", "access", "close", "commit", "create", "delegpurge",
    "delegreturn", "getattr", "getfh", "link", "lock", "lockt", "locku", "lookup", "lookup_root",
    "nverify", "open", "openattr", "open_conf", "open_dgrd", "putfh", "putpubfh", "putrootfh",
    "read", "readdir", "readlink", "remove", "rename", "renew", "restorefh", "savefh", "secinfo",
    "setattr", "setcltid", "setcltidconf", "verify", "write", "rellockowner", "bc_ctl", "bind_conn",
    "exchange_id", "create_ses", "destroy_ses", "free_stateid", "getdirdeleg", "getdevinfo",
    "getdevlist", "layoutcommit", "layoutget", "layoutreturn", "secinfononam", "sequence",
    "set_ssv", "test_stateid", "want_deleg", "destroy_clid", "reclaim_comp", "allocate", "copy",
    "copy_notify", "deallocate", "io_advise", "layouterror", "layoutstats", "offload_cancel",
    "offload_status", "read_plus", "seek", "write_same",
];

/// One side's counts (client or server), each line as the PMDA reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Rpc {
    /// Whether the file could be read.
    pub(super) ok: bool,
    /// `net`: count, UDP, TCP, TCP connections.
    net: [u32; 4],
    /// Client `rpc`: calls, retransmissions, authentication refreshes;
    /// server `rpc`: calls, errors, bad format, bad authentication, bad
    /// client.
    rpc: [u32; 5],
    /// Server `rc` (hits, misses, no cache, then the file handle counts
    /// `fh` fills too: cached, valid, fixup, lookup, stale, concurrent),
    /// then `fh`'s anon, nocache_dir, nocache_nondir.
    rc: [u32; 12],
    io: [u32; 2],
    th: [u32; 2],
    /// `ra`: size, hits (the depth counts summed), misses.
    ra: [u32; 3],
    proc2: [u32; 18],
    proc3: [u32; 22],
    /// Client: `proc4`'s 56; server: `proc4`'s null count, then
    /// `proc4ops`' 71.
    proc4: Vec<u32>,
}

impl Default for Rpc {
    fn default() -> Rpc {
        Rpc {
            ok: false,
            net: [0; 4],
            rpc: [0; 5],
            rc: [0; 12],
            io: [0; 2],
            th: [0; 2],
            ra: [0; 3],
            proc2: [0; 18],
            proc3: [0; 22],
            proc4: vec![0; 72],
        }
    }
}

/// `sscanf("KEY %u %u ...")` into `out`, as far as it reads.
fn scan_u32s(rest: &[u8], out: &mut [u32]) {
    let mut s = Scan::new(rest);
    for v in out {
        match s.u32() {
            Some(x) => *v = x,
            None => return,
        }
    }
}

/// A `procN COUNT V1 V2 ...` line's values into `out` (from `out`'s
/// start), as strtok on spaces and strtoul read them.
fn proc_counts(line: &[u8], out: &mut [u32]) {
    let mut toks = line.split(|&b| b == b' ').filter(|t| !t.is_empty()).skip(2);
    for v in out {
        let Some(t) = toks.next() else { return };
        *v = crate::scan::Scan::new(t).u64().unwrap_or(0) as u32;
    }
}

/// /proc/net/rpc/nfs or nfsd.
pub(super) fn rpc(text: &[u8], server: bool) -> Rpc {
    let mut r = Rpc { ok: true, ..Rpc::default() };
    for line in lines(text) {
        let after = |k: &str| &line[k.len().min(line.len())..];
        if server && line.starts_with(b"rc") {
            scan_u32s(after("rc"), &mut r.rc[..9]);
        } else if server && line.starts_with(b"fh") {
            // stale, lookup, anon, nocache_dir, nocache_nondir
            let mut v = [r.rc[7], r.rc[6], r.rc[9], r.rc[10], r.rc[11]];
            scan_u32s(after("fh"), &mut v);
            (r.rc[7], r.rc[6], r.rc[9], r.rc[10], r.rc[11]) = (v[0], v[1], v[2], v[3], v[4]);
        } else if server && line.starts_with(b"io") {
            scan_u32s(after("io"), &mut r.io);
        } else if server && line.starts_with(b"th") {
            scan_u32s(after("th"), &mut r.th);
        } else if server && line.starts_with(b"ra") {
            let mut v = [0u32; 12];
            let mut s = Scan::new(after("ra"));
            let mut n = 0;
            while n < 12 {
                match s.u32() {
                    Some(x) => v[n] = x,
                    None => break,
                }
                n += 1;
            }
            if n >= 1 {
                r.ra[0] = v[0];
            }
            r.ra[1] = v[1..11].iter().fold(0u32, |a, b| a.wrapping_add(*b));
            if n >= 12 {
                r.ra[2] = v[11];
            }
        } else if line.starts_with(b"net") {
            scan_u32s(after("net"), &mut r.net);
        } else if line.starts_with(b"rpc") {
            scan_u32s(after("rpc"), &mut r.rpc[..if server { 5 } else { 3 }]);
        } else if line.starts_with(b"proc2") {
            proc_counts(line, &mut r.proc2);
        } else if line.starts_with(b"proc3") {
            proc_counts(line, &mut r.proc3);
        } else if server && line.starts_with(b"proc4ops") {
            proc_counts(line, &mut r.proc4[1..]);
        } else if line.starts_with(b"proc4") {
            if server {
                // the third word: the null operation's count
                if let Some(t) = line.split(|&b| b == b' ').filter(|t| !t.is_empty()).nth(2) {
                    r.proc4[0] = Scan::new(t).u64().unwrap_or(0) as u32;
                }
            } else {
                proc_counts(line, &mut r.proc4[..56]);
            }
        }
    }
    r
}

/// /proc/fs/nfsd: threads, pools, and the pools' packets arrived,
/// sockets enqueued, threads woken and timed out; `None` where the PMDA
/// has none (no thread count, or threads and no pool).
pub(super) fn nfsd_threads(threads: Option<&[u8]>, pools: Option<&[u8]>) -> Option<(u32, u32, [u64; 4])> {
    let th = Scan::new(threads?).i32()?;
    let mut sums = [0u64; 4];
    let mut count = 0u32;
    if th > 0 {
        let mut text = pools?;
        if text.first() == Some(&b'#') {
            text = text.iter().position(|&b| b == b'\n').map_or(&[][..], |n| &text[n + 1..]);
        }
        let mut s = Scan::new(text);
        while let (Some(_), Some(a), Some(b), Some(c), Some(d)) = (s.u32(), s.u64(), s.u64(), s.u64(), s.u64()) {
            count += 1;
            for (sum, v) in sums.iter_mut().zip([a, b, c, d]) {
                *sum = sum.wrapping_add(v);
            }
        }
        if count < 1 {
            return None;
        }
    }
    Some((th as u32, count, sums))
}

#[derive(Clone, Debug, Default)]
struct Nfs {
    client: Rpc,
    server: Rpc,
    nfsd: Option<(u32, u32, [u64; 4])>,
}

/// The area, new.
pub(super) fn new(_: &Options) -> Box<dyn Area> {
    Box::<Nfs>::default()
}

impl Area for Nfs {
    fn refresh(&mut self, rd: &mut Reader, _clusters: &[u32]) {
        self.client = rd.with("/proc/net/rpc/nfs", |t| rpc(t, false)).unwrap_or_default();
        self.server = rd.with("/proc/net/rpc/nfsd", |t| rpc(t, true)).unwrap_or_default();
        let threads = rd.read_file("/proc/fs/nfsd/pool_threads");
        let pools = rd.read_file("/proc/fs/nfsd/pool_stats");
        self.nfsd = nfsd_threads(threads.as_deref(), pools.as_deref());
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        let (c, s) = (&self.client, &self.server);
        let item = def.pmid.item();
        let u = |v: u32| Ok(Some(AtomValue::U32(v)));
        let sum = |v: &[u32]| v.iter().fold(0u32, |a, b| a.wrapping_add(*b));
        let at = |v: &[u32], i: i32| -> Result<Option<AtomValue>, PmError> {
            let k = usize::try_from(i).map_err(|_| PmError::PM_ERR_INST)?;
            v.get(k).map(|x| Some(AtomValue::U32(*x))).ok_or(PmError::PM_ERR_INST)
        };
        let client_ok = c.ok;
        let server_ok = s.ok;
        match item {
            1 | 4 | 60 | 61 | 64 | 65 | 20..=27 if !client_ok => Ok(None),
            12 | 50 | 62 | 63 | 66 | 67 | 30..=47 | 51..=57 if !server_ok => Ok(None),
            1 => u(sum(&c.proc2)),
            4 => at(&c.proc2, inst),
            50 => u(sum(&s.proc2)),
            12 => at(&s.proc2, inst),
            60 => u(sum(&c.proc3)),
            61 => at(&c.proc3, inst),
            62 => u(sum(&s.proc3)),
            63 => at(&s.proc3, inst),
            64 => u(sum(&c.proc4[..56])),
            65 => at(&c.proc4[..56], inst),
            66 => u(sum(&s.proc4[1..])),
            67 if inst >= 1 => at(&s.proc4, inst),
            67 => Err(PmError::PM_ERR_INST),
            20..=22 => u(c.rpc[item as usize - 20]),
            24..=27 => u(c.net[item as usize - 24]),
            30..=34 => u(s.rpc[item as usize - 30]),
            35..=43 => u(s.rc[item as usize - 35]),
            44..=46 => u(s.net[item as usize - 44]),
            // (the PMDA serves the TCP count as the connection count)
            47 => u(s.net[2]),
            51..=53 => u(s.rc[item as usize - 42]),
            54 | 55 => u(s.io[item as usize - 54]),
            56 | 57 => u(s.th[item as usize - 56]),
            68..=70 => u(s.ra[item as usize - 68]),
            71..=76 => Ok(self.nfsd.map(|(th, pools, sums)| match item {
                71 => AtomValue::U32(th),
                72 => AtomValue::U32(pools),
                _ => AtomValue::U64(sums[item as usize - 73]),
            })),
            _ => Err(PmError::PM_ERR_PMID),
        }
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        let named = |ops: &'static [&'static str], from: i32| ops.iter().zip(from..).map(|(n, i)| (i, *n)).collect();
        match serial {
            NFS_INDOM => named(&NFS_OPS, 0),
            NFS3_INDOM => named(&NFS3_OPS, 0),
            NFS4_CLI_INDOM => named(&NFS4_CLI_OPS, 0),
            NFS4_SVR_INDOM => named(&NFS4_SVR_OPS, 1),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_files_read_as_the_pmda_reads_them() {
        let c = rpc(b"net 1 2 3 4\nrpc 5 6 7\nproc2 18 1 2 3\nproc3 22 9\nproc4 56 4 5\n", false);
        assert_eq!((c.net, &c.rpc[..3]), ([1, 2, 3, 4], &[5, 6, 7][..]));
        assert_eq!((&c.proc2[..4], c.proc3[0], &c.proc4[..3]), (&[1, 2, 3, 0][..], 9, &[4, 5, 0][..]));
        let s = rpc(b"rc 1 2 3\nfh 7 8 9 10 11\nra 32 1 1 1 1 1 1 1 1 1 1 4\nproc4 2 3 4\nproc4ops 72 0 0 5\n", true);
        assert_eq!((s.rc[0], s.rc[7], s.rc[6], s.rc[9]), (1, 7, 8, 9));
        assert_eq!(s.ra, [32, 10, 4]);
        assert_eq!((s.proc4[0], s.proc4[3]), (3, 5));
        assert_eq!(rpc(b"\xff\nproc2\nnet x\n", true).net, [0; 4]);
    }

    #[test]
    fn nfsd_pools_add_up() {
        let pools = b"# pool packets-arrived sockets-enqueued threads-woken threads-timedout\n0 10 2 8 1\n1 5 1 4 0\n";
        assert_eq!(nfsd_threads(Some(b"8\n"), Some(pools)), Some((8, 2, [15, 3, 12, 1])));
        assert_eq!(nfsd_threads(Some(b"0\n"), None), Some((0, 0, [0; 4])));
        assert_eq!(nfsd_threads(Some(b"4\n"), Some(b"# header only\n")), None);
        assert_eq!(nfsd_threads(None, None), None);
    }
}
