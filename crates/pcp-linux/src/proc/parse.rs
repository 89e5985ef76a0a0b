//! Pure parsers of a process's /proc files, as the proc PMDA reads them:
//! bytes in, values out. A damaged file gives what the PMDA's scanning
//! would give (zeros for numbers it cannot find), never a panic.

/// The longest instance name the PMDA keeps (`PROC_PID_STAT_CMD_MAXLEN`).
pub const NAME_MAX: usize = 4096;

/// The buffer the PMDA builds a process's name in (`MAXPATHLEN`).
const NAME_BUF: usize = 4096;

/// C `strtoul`/`strtoull` from `at`: leading white space, an optional
/// sign (a minus negates, wrapping), decimal digits; a value too large is
/// `u64::MAX`. The value and where the digits ended (`at` itself when
/// there were none, as `endptr` is then the start).
pub fn strtoul(buf: &[u8], at: usize) -> (u64, usize) {
    let mut i = at;
    while buf.get(i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')) {
        i += 1;
    }
    let neg = match buf.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let start = i;
    let mut v: u64 = 0;
    let mut over = false;
    while let Some(d) = buf.get(i).filter(|c| c.is_ascii_digit()) {
        match v.checked_mul(10).and_then(|x| x.checked_add(u64::from(d - b'0'))) {
            Some(x) => v = x,
            None => over = true,
        }
        i += 1;
    }
    if i == start {
        return (0, at);
    }
    if over {
        return (u64::MAX, i);
    }
    (if neg { v.wrapping_neg() } else { v }, i)
}

/// C `strtol` from `at` (decimal), saturated to the `long` range.
pub fn strtol(buf: &[u8], at: usize) -> (i64, usize) {
    let mut i = at;
    while buf.get(i).is_some_and(|c| c.is_ascii_whitespace() || *c == b'\x0b') {
        i += 1;
    }
    let neg = buf.get(i) == Some(&b'-');
    let (v, end) = strtoul(buf, i + usize::from(neg || buf.get(i) == Some(&b'+')));
    if end == i + usize::from(neg || buf.get(i) == Some(&b'+')) {
        return (0, at);
    }
    let v = match (neg, i64::try_from(v)) {
        (false, Ok(x)) => x,
        (false, Err(_)) => i64::MAX,
        (true, Ok(x)) => -x,
        (true, Err(_)) => i64::MIN,
    };
    (v, end)
}

/// The numbers at the start of `buf` separated by white space (a
/// `fscanf("%d\n")` loop): up to the first text that is not one.
pub fn scan_ints(buf: &[u8]) -> Vec<i32> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let (v, end) = strtol(buf, at);
        if end == at {
            return out;
        }
        out.push(v as i32);
        at = end;
    }
}

/// The fields of /proc/PID/stat after the state, in the order the PMDA
/// assigns them (see [`Stat::fields`]).
pub mod stat_field {
    #![allow(missing_docs)]
    pub const PPID: usize = 0;
    pub const PGRP: usize = 1;
    pub const SESSION: usize = 2;
    pub const TTY: usize = 3;
    pub const TTY_PGRP: usize = 4;
    pub const FLAGS: usize = 5;
    pub const MINFLT: usize = 6;
    pub const CMINFLT: usize = 7;
    pub const MAJFLT: usize = 8;
    pub const CMAJFLT: usize = 9;
    pub const UTIME: usize = 10;
    pub const STIME: usize = 11;
    pub const CUTIME: usize = 12;
    pub const CSTIME: usize = 13;
    pub const NICE: usize = 15;
    pub const IT_REAL_VALUE: usize = 16;
    pub const START_TIME: usize = 17;
    pub const VSIZE: usize = 18;
    pub const RSS: usize = 19;
    pub const RSS_RLIM: usize = 20;
    pub const START_CODE: usize = 21;
    pub const END_CODE: usize = 22;
    pub const START_STACK: usize = 23;
    pub const ESP: usize = 24;
    pub const EIP: usize = 25;
    pub const SIGNAL: usize = 26;
    pub const BLOCKED: usize = 27;
    pub const SIGIGNORE: usize = 28;
    pub const SIGCATCH: usize = 29;
    pub const WCHAN: usize = 30;
    pub const NSWAP: usize = 31;
    pub const CNSWAP: usize = 32;
    pub const EXIT_SIGNAL: usize = 33;
    pub const PROCESSOR: usize = 34;
    /// (the PMDA reads the field after `processor` as the priority,
    /// replacing the one it read before: each later field lands one
    /// name early)
    pub const PRIORITY: usize = 35;
    pub const RT_PRIORITY: usize = 36;
    pub const POLICY: usize = 37;
    pub const DELAYACCT: usize = 38;
    pub const GUEST: usize = 39;
    pub const CGUEST: usize = 40;
    pub const COUNT: usize = 41;
}

/// /proc/PID/stat as the PMDA reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// The command, between the first space + `(` and the last `)`.
    pub cmd: Vec<u8>,
    /// The state letter.
    pub state: u8,
    /// The numbers, indexed by [`stat_field`] (signed ones as their
    /// two's complement).
    pub fields: [u64; stat_field::COUNT],
}

impl Default for Stat {
    fn default() -> Stat {
        Stat { cmd: Vec::new(), state: 0, fields: [0; stat_field::COUNT] }
    }
}

/// Parse /proc/PID/stat; `None` when it has no command in parentheses.
pub fn stat(buf: &[u8]) -> Option<Stat> {
    use stat_field as f;
    let sp = memchr::memchr(b' ', buf)?;
    let open = sp + 2;
    let close = memchr::memrchr(b')', buf.get(open..)?)? + open;
    let mut s = Stat { cmd: buf[open..close].to_vec(), ..Stat::default() };
    let mut p = close + 2;
    s.state = buf.get(p).copied().unwrap_or(0);
    let mut k = 0;
    // 17 fields up to `nice`, the thread count skipped, then the rest
    for field in 0..(f::COUNT + 1) {
        p += 1;
        let signed = matches!(field, f::TTY_PGRP | 14 | f::NICE);
        let (v, end) = if signed {
            let (v, e) = strtol(buf, p);
            (v as u64, e)
        } else {
            strtoul(buf, p)
        };
        p = end;
        if field == 16 {
            continue; // the thread count: /proc/PID/status has it
        }
        s.fields[k] = v;
        k += 1;
    }
    Some(s)
}

/// /proc/PID/statm's seven page counts (size, resident, shared, text,
/// library, data, dirty).
pub fn statm(buf: &[u8]) -> [u64; 7] {
    let mut out = [0; 7];
    let mut p = 0;
    for (i, v) in out.iter_mut().enumerate() {
        if i > 0 {
            p += 1;
        }
        let (x, end) = if i == 4 {
            let (x, e) = strtol(buf, p);
            (x as u64, e)
        } else {
            strtoul(buf, p)
        };
        *v = x;
        p = end;
    }
    out
}

/// /proc/PID/schedstat: run time, run delay and time slices.
pub fn schedstat(buf: &[u8]) -> [u64; 3] {
    let (a, p) = strtoul(buf, 0);
    let (b, p) = strtoul(buf, p + 1);
    let (c, _) = strtoul(buf, p + 1);
    [a, b, c]
}

/// The lines of a file, each without its newline.
fn lines(buf: &[u8]) -> impl Iterator<Item = &[u8]> {
    buf.split(|&c| c == b'\n')
}

/// The number after `key` (its value starting `skip` bytes into the line).
fn keyed(line: &[u8], key: &[u8], skip: usize) -> Option<u64> {
    line.starts_with(key).then(|| strtoul(line, skip.min(line.len())).0)
}

/// /proc/PID/io: rchar, wchar, syscr, syscw, read_bytes, write_bytes,
/// cancelled_write_bytes.
pub fn io(buf: &[u8]) -> [u64; 7] {
    const KEYS: [&[u8]; 7] =
        [b"rchar:", b"wchar:", b"syscr:", b"syscw:", b"read_bytes:", b"write_bytes:", b"cancelled_write_bytes:"];
    let mut out = [0; 7];
    for line in lines(buf) {
        if let Some(k) = KEYS.iter().position(|k| line.starts_with(k)) {
            out[k] = strtoul(line, (KEYS[k].len() + 1).min(line.len())).0;
        }
    }
    out
}

/// The fields of /proc/PID/smaps_rollup the PMDA serves, in its items'
/// order (`proc.smaps.rss` is item 0).
pub const SMAPS_KEYS: [&[u8]; 20] = [
    b"Rss:",
    b"Pss:",
    b"Pss_Anon:",
    b"Pss_File:",
    b"Pss_Shmem:",
    b"Shared_Clean:",
    b"Shared_Dirty:",
    b"Private_Clean:",
    b"Private_Dirty:",
    b"Referenced:",
    b"Anonymous:",
    b"LazyFree:",
    b"AnonHugePages:",
    b"ShmemPmdMapped:",
    b"FilePmdMapped:",
    b"Shared_Hugetlb:",
    b"Private_Hugetlb:",
    b"Swap:",
    b"SwapPss:",
    b"Locked:",
];

/// /proc/PID/smaps_rollup, by [`SMAPS_KEYS`] (kB).
pub fn smaps(buf: &[u8]) -> [u64; 20] {
    let mut out = [0; 20];
    for line in lines(buf) {
        if let Some(k) = SMAPS_KEYS.iter().position(|k| line.starts_with(k)) {
            out[k] = strtoul(line, (SMAPS_KEYS[k].len() + 1).min(line.len())).0;
        }
    }
    out
}

/// /proc/PID/status as the PMDA reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    /// Uid: real, effective, saved, file system.
    pub uid: [u64; 4],
    /// Gid: real, effective, saved, file system.
    pub gid: [u64; 4],
    /// `Tgid:`, when there.
    pub tgid: Option<u64>,
    /// `envID:`, when there.
    pub envid: Option<u64>,
    /// `Ngid:` (as text), when there.
    pub ngid: Option<Vec<u8>>,
    /// `NStgid:`, `NSpid:`, `NSpgid:`, `NSsid:` with their white space
    /// made commas, when there.
    pub ns: [Option<Vec<u8>>; 4],
    /// `SigPnd:`, `SigBlk:`, `SigIgn:`, `SigCgt:` (empty when missing).
    pub sig: [Vec<u8>; 4],
    /// `Cpus_allowed_list:`, when there.
    pub cpus_allowed: Option<Vec<u8>>,
    /// VmPeak, VmSize, VmLck, VmPin, VmHWM, VmRSS, VmData, VmStk, VmExe,
    /// VmLib, VmPTE, VmSwap (kB).
    pub vm: [u64; 12],
    /// `Threads:`.
    pub threads: u64,
    /// `voluntary_ctxt_switches:` and `nonvoluntary_ctxt_switches:`.
    pub ctxsw: [u64; 2],
}

/// The `Vm*` keys of [`Status::vm`].
const VM_KEYS: [&[u8]; 12] = [
    b"VmPeak:", b"VmSize:", b"VmLck:", b"VmPin:", b"VmHWM:", b"VmRSS:", b"VmData:", b"VmStk:", b"VmExe:", b"VmLib:",
    b"VmPTE:", b"VmSwap:",
];

/// A text value after `key`: leading white space skipped, the rest of the
/// line (white space made commas when `commas`).
fn text_value(line: &[u8], key_len: usize, commas: bool) -> Vec<u8> {
    let rest = line.get(key_len..).unwrap_or_default();
    let start = rest.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(rest.len());
    rest[start..].iter().map(|&c| if commas && c.is_ascii_whitespace() { b',' } else { c }).collect()
}

/// Parse /proc/PID/status.
pub fn status(buf: &[u8]) -> Status {
    let mut s = Status::default();
    for line in lines(buf) {
        let ids = |skip: usize| {
            let mut out = [0; 4];
            let mut p = skip.min(line.len());
            for (i, v) in out.iter_mut().enumerate() {
                if i > 0 {
                    p += 1;
                }
                let (x, e) = strtoul(line, p.min(line.len()));
                *v = x;
                p = e;
            }
            out
        };
        match line.first() {
            Some(b'U') if line.starts_with(b"Uid:") => s.uid = ids(5),
            Some(b'G') if line.starts_with(b"Gid:") => s.gid = ids(5),
            Some(b'C') if line.starts_with(b"Cpus_allowed_list:") => s.cpus_allowed = Some(text_value(line, 18, false)),
            Some(b'e') => s.envid = keyed(line, b"envID:", 7).or(s.envid),
            Some(b'T') => {
                if let Some(v) = keyed(line, b"Threads:", 9) {
                    s.threads = v;
                } else if let Some(v) = keyed(line, b"Tgid:", 6) {
                    s.tgid = Some(v);
                }
            }
            Some(b'N') => {
                if line.starts_with(b"Ngid:") {
                    s.ngid = Some(text_value(line, 5, false));
                }
                for (k, key) in [&b"NStgid:"[..], b"NSpid:", b"NSpgid:", b"NSsid:"].iter().enumerate() {
                    if line.starts_with(key) {
                        s.ns[k] = Some(text_value(line, key.len(), true));
                    }
                }
            }
            Some(b'S') => {
                for (k, key) in [&b"SigPnd:"[..], b"SigBlk:", b"SigIgn:", b"SigCgt:"].iter().enumerate() {
                    if line.starts_with(key) {
                        s.sig[k] = text_value(line, key.len(), false);
                    }
                }
            }
            Some(b'V') => {
                if let Some(k) = VM_KEYS.iter().position(|k| line.starts_with(k)) {
                    s.vm[k] = strtoul(line, VM_KEYS[k].len().min(line.len())).0;
                }
            }
            Some(b'v') => s.ctxsw[0] = keyed(line, b"voluntary_ctxt_switches:", 25).unwrap_or(s.ctxsw[0]),
            Some(b'n') => s.ctxsw[1] = keyed(line, b"nonvoluntary_ctxt_switches:", 28).unwrap_or(s.ctxsw[1]),
            _ => {}
        }
    }
    s
}

/// The length of a container identifier (a SHA-256 in hexadecimal).
const CONTAINER_ID_LEN: usize = 64;

/// The container a cpuset cgroup path names, as the PMDA guesses it: the
/// last path component's `libpod-ID.` or `docker-ID.` form, or a last
/// component of the identifier's length.
pub(crate) fn container_of(path: &[u8]) -> Option<&[u8]> {
    let end = path.iter().rposition(|&c| c != b'\n').map_or(0, |i| i + 1);
    // the PMDA's backward search starts at the end itself
    let slash = (1..=end).rev().find(|&i| path.get(i) == Some(&b'/'))?;
    let comp = &path[slash..];
    if comp.starts_with(b"/libpod-") || comp.starts_with(b"/docker-") {
        let id = &comp[8..];
        let dot = memchr::memchr(b'.', id)?;
        return (dot == CONTAINER_ID_LEN).then(|| &id[..dot]);
    }
    let len = (end - slash).checked_sub(2)?;
    (len == CONTAINER_ID_LEN).then(|| &path[slash + 1..slash + 1 + len])
}

/// /proc/PID/cgroup in the form `ps` prints it (`cpu:/;cpuset:/`: each
/// newline-ended line without its hierarchy number, joined by `;`), and
/// the container identifier its cpuset line names (empty for none).
pub fn cgroups(buf: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let text = &buf[..memchr::memchr(0, buf).unwrap_or(buf.len())];
    let (mut out, mut cid) = (Vec::with_capacity(text.len()), None);
    let mut rest = text;
    while let Some(nl) = memchr::memchr(b'\n', rest) {
        let line = &rest[..nl];
        rest = &rest[nl + 1..];
        let Some(colon) = memchr::memchr(b':', line) else { continue };
        let group = &line[colon + 1..];
        if !out.is_empty() {
            out.push(b';');
        }
        if cid.is_none() {
            cid = group.strip_prefix(b"cpuset:").and_then(container_of);
        }
        out.extend_from_slice(group);
    }
    (out, cid.map(<[u8]>::to_vec).unwrap_or_default())
}

/// A process's name as the PMDA makes it when it first sees the process:
/// `"%06d "` and its command line (arguments joined by spaces), or for an
/// empty command line `(Name)` from its status file, or `<exiting>` when
/// neither can be read. `cmdline` and `status` are the files' contents
/// (`None`: cannot be read).
pub fn process_name(pid: i32, cmdline: Option<&[u8]>, status: impl FnOnce() -> Option<Vec<u8>>) -> Vec<u8> {
    let prefix = format!("{pid:06} ").into_bytes();
    let numlen = prefix.len();
    if let Some(cmd) = cmdline.filter(|c| !c.is_empty()) {
        let k = cmd.len().min(NAME_BUF.saturating_sub(numlen));
        let mut buf = prefix;
        buf.extend_from_slice(&cmd[..k]);
        let mut end = buf.len();
        if end >= NAME_BUF {
            end -= 1;
        }
        buf.truncate(end);
        // trailing NULs stay, ending the string; the NULs between
        // arguments become spaces (the first byte of the command line
        // is never looked at)
        let mut p = end - 1;
        while numlen < p {
            let c = buf[p];
            p -= 1;
            if c != 0 {
                break;
            }
        }
        while numlen < p {
            if buf[p] == 0 {
                buf[p] = b' ';
            }
            p -= 1;
        }
        buf.truncate(memchr::memchr(0, &buf).unwrap_or(buf.len()));
        return buf;
    }
    if let Some(text) = status().filter(|t| !t.is_empty()) {
        // the file read two bytes into the buffer, its first line closed
        // by a parenthesis, then the pid and an opening one written over
        // its start ("Name:\t" is as long as "%06d (")
        let k = text.len().min(NAME_BUF - 4);
        let mut buf = vec![0u8, 0u8];
        buf.extend_from_slice(&text[..k]);
        let close = memchr::memchr(b'\n', &buf[2..]).map_or(k, |i| i + 2);
        buf.resize(buf.len().max(close + 2).max(numlen + 1), 0);
        buf[close] = b')';
        buf[close + 1] = 0;
        buf[..numlen].copy_from_slice(&prefix);
        buf[numlen] = b'(';
        buf.truncate(memchr::memchr(0, &buf).unwrap_or(buf.len()));
        return buf;
    }
    let mut buf = prefix;
    buf.extend_from_slice(b"<exiting>");
    buf
}

/// The instance name of a process named `name` (see [`process_name`]):
/// up to the space after its command, at most `NAME_MAX` bytes.
pub fn instance_name(name: &[u8]) -> &[u8] {
    let end = memchr::memchr(b' ', name)
        .and_then(|s| memchr::memchr(b' ', &name[s + 1..]).map(|t| s + 1 + t))
        .unwrap_or(name.len());
    &name[..end.min(NAME_MAX)]
}

/// A file's contents with its last byte dropped, as the PMDA ends the
/// strings it reads whole (`environ`, `maps`, `attr/current`), NULs made
/// spaces when `nuls`.
pub fn chop(buf: &[u8], nuls: bool) -> Vec<u8> {
    let mut v: Vec<u8> = buf[..buf.len().saturating_sub(1)].to_vec();
    if nuls {
        v.iter_mut().filter(|c| **c == 0).for_each(|c| *c = b' ');
    }
    v.truncate(memchr::memchr(0, &v).unwrap_or(v.len()));
    v
}

/// /proc/PID/autogroup: `/autogroup-ID nice N` (zeros where missing).
pub fn autogroup(buf: &[u8]) -> (u32, i32) {
    let Some(rest) = buf.strip_prefix(b"/autogroup-") else { return (0, 0) };
    let (id, p) = strtoul(rest, 0);
    let after = &rest[p..];
    let t = after.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(after.len());
    let nice = after[t..].strip_prefix(b"nice").map_or(0, |n| strtol(n, 0).0 as i32);
    (id as u32, nice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_as_the_pmda_makes_them() {
        let none = || None;
        assert_eq!(process_name(1, Some(b"/sbin/init\0splash\0"), none), b"000001 /sbin/init splash");
        assert_eq!(instance_name(b"000001 /sbin/init splash"), b"000001 /sbin/init");
        assert_eq!(process_name(12, Some(b"a\0\0"), none), b"000012 a");
        assert_eq!(process_name(12, Some(b"\0\0\0"), none), b"000012 ");
        let status = || Some(b"Name:\tkthreadd\nUmask:\t0000\n".to_vec());
        assert_eq!(process_name(2, Some(b""), status), b"000002 (kthreadd)");
        assert_eq!(process_name(2, None, status), b"000002 (kthreadd)");
        // a seven-digit pid writes over the name's first letter
        assert_eq!(process_name(9876868, None, || Some(b"Name:\tsleep30\n".to_vec())), b"9876868 (leep30)");
        assert_eq!(process_name(9268, None, none), b"009268 <exiting>");
        assert_eq!(instance_name(b"009268 <exiting>"), b"009268 <exiting>");
        assert_eq!(process_name(5, None, || Some(b"N".to_vec())), b"000005 (");
    }

    #[test]
    fn stat_fields_land_where_the_pmda_puts_them() {
        let t = b"1 (process (api)) S 0 0 0 0 -1 4194560 80243 133564819 0 20431 240 1226 235599 57032 10 -10 13 0 24 45944832 3751 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        let s = stat(t).unwrap();
        assert_eq!(s.cmd, b"process (api)");
        assert_eq!(s.state, b'S');
        use stat_field as f;
        assert_eq!(s.fields[f::TTY_PGRP] as i64, -1);
        assert_eq!(s.fields[f::UTIME], 240);
        assert_eq!(s.fields[f::NICE] as i64, -10);
        assert_eq!(s.fields[f::START_TIME], 24);
        assert_eq!(s.fields[f::RSS], 3751);
        assert_eq!(s.fields[f::PROCESSOR], 1);
        assert_eq!(s.fields[f::PRIORITY], 0);
        assert!(stat(b"12").is_none());
        assert!(stat(b"12 (x").is_none());
        let short = stat(b"1 (a) R 7").unwrap();
        assert_eq!((short.state, short.fields[f::PPID], short.fields[f::CGUEST]), (b'R', 7, 0));
    }

    #[test]
    fn status_and_friends() {
        let t = b"Name:\tbash\nTgid:\t21374\nNgid:\t0\nUid:\t1000\t1001\t1002\t1003\nGid:\t5\t6\t7\t8\nNStgid:\t5\t1\nVmRSS:\t    5200 kB\nVmSwap:\t      12 kB\nThreads:\t3\nSigBlk:\t0000000000010000\nCpus_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t225\nnonvoluntary_ctxt_switches:\t56\n";
        let s = status(t);
        assert_eq!((s.uid, s.gid), ([1000, 1001, 1002, 1003], [5, 6, 7, 8]));
        assert_eq!((s.tgid, s.ngid.as_deref()), (Some(21374), Some(&b"0"[..])));
        assert_eq!(s.ns[0].as_deref(), Some(&b"5,1"[..]));
        assert_eq!((s.vm[5], s.vm[11], s.threads, s.ctxsw), (5200, 12, 3, [225, 56]));
        assert_eq!((s.sig[1].as_slice(), s.cpus_allowed.as_deref()), (&b"0000000000010000"[..], Some(&b"0-1"[..])));
        assert_eq!(statm(b"5 4 3 2 1 0 9\n"), [5, 4, 3, 2, 1, 0, 9]);
        assert_eq!(schedstat(b"10 20 30\n"), [10, 20, 30]);
        assert_eq!(io(b"rchar: 1\nwchar: 2\ncancelled_write_bytes: 7\n"), [1, 2, 0, 0, 0, 0, 7]);
        assert_eq!(smaps(b"Rss:  10 kB\nLocked:  3 kB\n")[19], 3);
        assert_eq!(autogroup(b"/autogroup-42 nice -3\n"), (42, -3));
        assert_eq!(chop(b"A=1\0B=2\0", true), b"A=1 B=2");
    }

    #[test]
    fn cgroup_files_scan_as_fscanf_does() {
        assert_eq!(scan_ints(b"3\n12\n7\n"), [3, 12, 7]);
        assert_eq!(scan_ints(b"  4 -5\n6x 8\n"), [4, -5, 6]);
        assert_eq!(scan_ints(b""), [0; 0]);
    }

    #[test]
    fn cgroups_as_ps_prints_them() {
        let id = "0ea0c47ef0e1a90cd10059a0da0abd4da28d3bc35ce15c7beb46da1c7ab02736";
        let t = format!("2:cpu:/\n1:cpuset:/system.slice/docker-{id}.scope\n0::/init.scope\n");
        let (g, c) = cgroups(t.as_bytes());
        assert_eq!(String::from_utf8(g).unwrap(), format!("cpu:/;cpuset:/system.slice/docker-{id}.scope;:/init.scope"));
        assert_eq!(c, id.as_bytes());
        assert_eq!(cgroups(b"1:cpuset:/\n2:x:/y"), (b"cpuset:/".to_vec(), Vec::new()));
    }
}
