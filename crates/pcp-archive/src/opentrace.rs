//! libpcp's `-Dlog` trace of opening an archive: `__pmLogFindOpen`'s
//! directory scan, `__pmFopen` on each file it opens, `__pmLogLoadLabel`'s
//! complaints and `__pmLogChkLabel`'s summary of each label, and the
//! first `__pmLogChangeVol`.
//!
//! The opening itself is [`crate::archive`]'s; this module only says what
//! libpcp would have said on the way, in its order, stopping where libpcp
//! gives up. It runs only when the trace asks for it, so an untraced open
//! costs nothing more. File descriptors are the ones libpcp would get
//! (the lowest free, counting from 3, the directory scan's included).

use crate::files::{archive_base, COMPRESSION_SUFFIXES};
use crate::logread::Ts;
use pcp_core::debug::{DebugFlag, Trace};
use pcp_core::PmError;
use std::io::Read;
use std::path::Path;

/// The size of a label record (header, label, trailer) by format version.
fn label_size(version: u32) -> usize {
    if version == 3 {
        808
    } else {
        132
    }
}

/// `PM_LOG_MAGIC`.
const LOG_MAGIC: u32 = 0x5005_2600;

/// `__pmLogFeaturesStr`: the names of the bits set, highest first.
pub(crate) fn features_str(features: u32) -> String {
    (0..32)
        .rev()
        .filter(|b| features & (1 << b) != 0)
        .map(|b| if b == 31 { "QA".to_owned() } else { format!("bit_{b:02}") })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What `__pmFopen`, `__pmStat` and `__pmAccess` say about decompressing
/// `path`: `no decompress`, or the program and whether libpcp
/// decompresses on the fly.
pub fn decompress_note(path: &str) -> String {
    match compressed_as(path) {
        None => "no decompress".to_owned(),
        Some((0, _)) => "decompress: xz (on-the-fly)".to_owned(),
        Some((i, _)) => format!("decompress: {}", PROGRAMS[i]),
    }
}

/// The program libpcp decompresses each of [`COMPRESSION_SUFFIXES`] with.
const PROGRAMS: [&str; 7] = ["xz", "xz", "bzip2", "bzip2", "gzip", "gzip", "gzip"];

/// `__pmFopen`'s trace of opening `path`: under `-Dlog` the file and how
/// it is decompressed, and of a file decompressed by a program (all but
/// xz's), the `-Dconfig` trace of looking up `PCP_TMPFILE_DIR` (where
/// libpcp puts the temporary file it decompresses into; this crate
/// decompresses in memory) and the `-Dlog` program line.
pub fn fopen_trace(path: &str, trace: &Trace) -> String {
    let log = trace.on(DebugFlag::Log);
    let mut s = String::new();
    if log {
        s = format!("__pmFopen(\"{path}\", \"r\"): {}\n", decompress_note(path));
    }
    if let Some((i, file)) = compressed_as(path).filter(|(i, _)| *i > 0) {
        s += &String::from_utf8_lossy(&trace.config_lookup_trace("PCP_TMPFILE_DIR"));
        if log {
            s += &format!("__pmLogOpen: uncompress using: {} -dc {file}\n", PROGRAMS[i]);
        }
    }
    s
}

/// Whether `trace` asks for any of what opening an archive traces.
pub(crate) fn traces_opening(trace: &Trace) -> bool {
    [DebugFlag::Log, DebugFlag::LogMeta, DebugFlag::Context, DebugFlag::Config].iter().any(|&f| trace.on(f))
}

/// `index_compress`: which of [`COMPRESSION_SUFFIXES`] `path` is read
/// through, and the file then read.
fn compressed_as(path: &str) -> Option<(usize, String)> {
    let suffix = path.rfind('.').map(|i| &path[i..]);
    let found = match suffix.and_then(|s| COMPRESSION_SUFFIXES.iter().position(|c| *c == s)) {
        Some(i) => Some(i),
        None => match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => COMPRESSION_SUFFIXES.iter().position(|c| {
                let alt = format!("{path}{c}");
                match std::fs::metadata(&alt) {
                    Ok(_) => true,
                    Err(e) => !matches!(e.raw_os_error(), Some(2) | Some(20)),
                }
            }),
            _ => None,
        },
    };
    found.map(|i| {
        if path.ends_with(COMPRESSION_SUFFIXES[i]) {
            (i, path.to_owned())
        } else {
            (i, format!("{path}{}", COMPRESSION_SUFFIXES[i]))
        }
    })
}

/// The file to read for `path` as `__pmFopen` picks it: `path` itself, or
/// its first compressed form when it does not exist.
fn fopen_target(path: &str) -> Option<String> {
    if Path::new(path).exists() {
        return Some(path.to_owned());
    }
    COMPRESSION_SUFFIXES.iter().map(|c| format!("{path}{c}")).find(|p| Path::new(p).exists())
}

/// A label's fields as `__pmLogLoadLabel` takes them from its record.
struct LabelFields {
    magic: u32,
    pid: i32,
    start: Ts,
    vol: i32,
    features: u32,
    host: Vec<u8>,
    tz: Vec<u8>,
    /// (v3 only)
    zoneinfo: Option<Vec<u8>>,
}

/// A NUL-terminated string in a fixed field.
fn cstr(b: &[u8]) -> Vec<u8> {
    b.split(|&c| c == 0).next().unwrap_or_default().to_vec()
}

fn be32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
}

impl LabelFields {
    /// From a label record's bytes (header word first) of format
    /// `version` (2 or 3), as long as the record is.
    fn parse(rec: &[u8], version: u32) -> LabelFields {
        // the words after the header
        let w = |i: usize| be32(rec, 4 + 4 * i);
        if version == 3 {
            LabelFields {
                magic: w(0),
                pid: w(1) as i32,
                // the low word of the seconds first, as libpcp reads them here
                start: Ts { sec: ((w(3) as u64) << 32 | w(2) as u64) as i64, nsec: w(4) as i32 },
                vol: w(5) as i32,
                features: w(6),
                host: cstr(rec.get(36..36 + 255).unwrap_or_default()),
                tz: cstr(rec.get(292..292 + 255).unwrap_or_default()),
                zoneinfo: Some(cstr(rec.get(548..548 + 255).unwrap_or_default())),
            }
        } else {
            LabelFields {
                magic: w(0),
                pid: w(1) as i32,
                start: Ts { sec: w(2) as i32 as i64, nsec: w(3).wrapping_mul(1000) as i32 },
                vol: w(4) as i32,
                features: 0,
                host: cstr(rec.get(24..24 + 63).unwrap_or_default()),
                tz: cstr(rec.get(88..88 + 39).unwrap_or_default()),
                zoneinfo: None,
            }
        }
    }
}

/// `__pmLogChkLabel`'s summary of a label that passed its checks (no
/// newline): ` [magic=... host=... tz=...]`.
fn label_summary(l: &LabelFields, version: u32, trace: &Trace) -> String {
    let mut s = format!(
        " [magic=0x{:08x} version={version} vol={} pid={} start={}",
        l.magic,
        l.vol,
        l.pid,
        crate::logread::trace_time(trace, l.start)
    );
    if l.features != 0 {
        s += &format!(" features=0x{:x} \"{}\"", l.features, features_str(l.features));
    }
    s += &format!(" host={} tz={}", String::from_utf8_lossy(&l.host), String::from_utf8_lossy(&l.tz));
    if let Some(z) = &l.zoneinfo {
        s += &format!(" zoneinfo={}", String::from_utf8_lossy(z));
    }
    s.push(']');
    s
}

/// What a label that passed `__pmLogChkLabel` says of its archive.
#[derive(PartialEq)]
pub(crate) struct Checked {
    version: u32,
    pid: i32,
    host: Vec<u8>,
}

/// `__pmLogChkLabel` of the label at the start of `data` (the file's
/// bytes, all of them or at least one more than a label holds), read
/// through descriptor `fd` as volume `vol`: the trace, and what the label says
/// (or libpcp's error), written to `out`.
pub(crate) fn chk_label_trace(
    data: &[u8],
    fd: i32,
    vol: i32,
    check_features: bool,
    trace: &Trace,
    out: &mut String,
) -> Result<Checked, PmError> {
    // __pmLogLoadLabel
    if data.len() < 8 {
        out.push_str("__pmLogLoadLabel: file is empty\n");
        return Err(PmError::PM_ERR_NODATA);
    }
    let length = be32(data, 0) as usize;
    let version = be32(data, 4) & 0xff;
    if version != 2 && version != 3 {
        out.push_str(&format!("__pmLogLoadLabel: label version {version} not supported\n"));
        return Err(PmError::PM_ERR_LABEL);
    }
    let size = label_size(version);
    if length != size {
        out.push_str(&format!("__pmLogLoadLabel: bad header len={length} (expected {size})\n"));
        return Err(PmError::PM_ERR_LABEL);
    }
    let body = size - 12;
    let got = (data.len() - 8).min(body);
    if got != body {
        out.push_str(&format!("__pmLogLoadLabel: bad label read len={got}: expected {body}\n"));
        return Err(PmError::PM_ERR_LABEL);
    }
    // the trailer is read over the header word, as it was read
    let mut trailer = data[0..4].to_vec();
    let tail = &data[size - 4..data.len().min(size)];
    trailer[..tail.len()].copy_from_slice(tail);
    let trailer = be32(&trailer, 0) as i32;
    if tail.len() != 4 || trailer as usize != length {
        out.push_str(&format!(
            "__pmLogLoadLabel: trailer read -> {} (expect 4) or bad trailer len={trailer} (expected {length})\n",
            tail.len()
        ));
        return Err(PmError::PM_ERR_LABEL);
    }
    let l = LabelFields::parse(&data[..size], version);
    out.push_str(&format!("__pmLogChkLabel: fd={fd} vol={vol}"));
    let result = if l.magic & 0xffff_ff00 != LOG_MAGIC {
        out.push_str(&format!(" label magic 0x{:x} not 0x{LOG_MAGIC:x} as expected", l.magic & 0xffff_ff00));
        Err(PmError::PM_ERR_LABEL)
    } else if l.vol != vol {
        out.push_str(&format!(" label volume {} not {vol} as expected", l.vol));
        Err(PmError::PM_ERR_LABEL)
    } else if check_features && l.features & !0x8000_0000 != 0 {
        out.push_str(&format!(" features 0x{:x} [unknown: {}]", l.features, features_str(l.features & !0x8000_0000)));
        Err(PmError::PM_ERR_FEATURE)
    } else {
        if trace.on(DebugFlag::Context) {
            out.push_str(&set_version_ipc(fd, trace));
        }
        out.push_str(&label_summary(&l, version, trace));
        if data.len() == size {
            out.push_str(" file is empty");
            Err(PmError::PM_ERR_NODATA)
        } else {
            Ok(Checked { version, pid: l.pid, host: l.host })
        }
    };
    out.push('\n');
    result
}

/// `__pmSetVersionIPC`'s `-Dcontext` trace of marking descriptor `fd`
/// (an archive file's) as speaking PDU version 2, with the table of
/// every descriptor so marked in the process.
fn set_version_ipc(fd: i32, trace: &Trace) -> String {
    format!("__pmSetVersionIPC: fd={fd} version=2\n{}", trace.ipc_set(fd, true, false))
}

/// What is not `-Dlog`'s in a trace of opening files and checking
/// labels made with it on, for when `-Dlog` is off: `-Dcontext`'s
/// (`__pmSetVersionIPC` and its table) and `-Dconfig`'s look-ups.
pub(crate) fn unlogged_part(out: &str) -> String {
    let mut kept = String::new();
    let mut lines = out.split_inclusive('\n');
    while let Some(line) = lines.next() {
        if line.starts_with("pmgetconfig: ") {
            kept.push_str(line);
        } else if let Some(at) = line.find("__pmSetVersionIPC: ") {
            // its line and the table's
            kept.push_str(&line[at..]);
            kept.push_str(lines.next().unwrap_or_default());
        }
    }
    kept
}

/// The first bytes of `path` (decompressed): a label's worth and one more.
fn head_of(path: &str) -> Vec<u8> {
    let mut data = Vec::new();
    if let Ok(f) = crate::files::open(Path::new(path)) {
        let _ = f.take(809).read_to_end(&mut data);
    }
    data
}

/// File descriptors as the C library hands them out: the lowest free.
struct Fds(Vec<i32>);

impl Fds {
    fn open(&mut self) -> i32 {
        let fd = (3..).find(|f| !self.0.contains(f)).unwrap_or(3);
        self.0.push(fd);
        fd
    }

    fn close(&mut self, fd: i32) {
        self.0.retain(|&f| f != fd);
    }
}

/// `__pmLogBaseName` of a directory entry: its archive base name and the
/// suffix (`index`, `meta`, a volume number; a compression suffix
/// dropped), or `None` when it is not the name of an archive file.
fn split_entry(name: &str) -> Option<(&str, &str)> {
    let mut n = name;
    if let Some(dot) = n.rfind('.') {
        if COMPRESSION_SUFFIXES.contains(&&n[dot..]) {
            n = &n[..dot];
            n.rfind('.')?;
        }
    }
    let dot = n.rfind('.')?;
    let tail = &n[dot + 1..];
    let digits = tail.strip_prefix(['-', '+']).unwrap_or(tail);
    let number = !tail.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.is_empty();
    (tail == "index" || tail == "meta" || number).then(|| (&n[..dot], tail))
}

/// `dirname(3)` of `name`.
fn dirname(name: &str) -> String {
    let t = name.trim_end_matches('/');
    if t.is_empty() {
        return if name.is_empty() { ".".into() } else { "/".into() };
    }
    match t.rfind('/') {
        None => ".".into(),
        Some(i) => {
            let d = t[..i].trim_end_matches('/');
            if d.is_empty() {
                "/".into()
            } else {
                d.into()
            }
        }
    }
}

/// libpcp's name for the archive of base name `base`: its directory (`.`
/// for none) and last component, as volume names are made from it.
pub fn lcp_name(base: &Path) -> String {
    let b = base.to_string_lossy();
    if b.contains('/') {
        b.into_owned()
    } else {
        format!("./{b}")
    }
}

/// Trace opening the archive `name` as `__pmLogOpen` does (see the
/// module). Nothing is done unless `trace` has
/// `-Dlog` on.
pub fn trace_log_open(name: &str, check_features: bool, trace: &Trace) {
    trace_log_open_in_set(name, check_features, None, trace);
}

/// [`trace_log_open`] of an archive opened after others into one context
/// whose first archive's host is `first_host`: libpcp loads no metadata
/// of an archive of another host (`-Dlogmeta`).
pub fn trace_log_open_in_set(name: &str, check_features: bool, first_host: Option<&[u8]>, trace: &Trace) {
    let (log, meta) = (trace.on(DebugFlag::Log), trace.on(DebugFlag::LogMeta));
    if !traces_opening(trace) || name.is_empty() {
        return;
    }
    let mut out = String::new();
    // (the files of an archive opened before are closed by now)
    trace.ipc_forget(None);
    let loading =
        log_open(name, check_features, trace, &mut out).filter(|(_, host, _)| first_host.is_none_or(|h| h == host));
    if !log {
        out = unlogged_part(&out);
    }
    if let Some((path, _, version)) = loading.filter(|_| meta) {
        let mut data = Vec::new();
        if let Ok(mut f) = crate::files::open(Path::new(&path)) {
            let _ = f.read_to_end(&mut data);
        }
        crate::metatrace::load_meta_trace(&data, version, trace, &mut out);
    }
    trace.write_bytes(out.as_bytes());
}

/// The trace of opening up to loading the metadata; the metadata file to
/// load, the host and the label's version, if libpcp gets that far.
fn log_open(name: &str, check_features: bool, trace: &Trace, out: &mut String) -> Option<(String, Vec<u8>, u32)> {
    log_open_fds(name, check_features, trace, out).map(|(path, host, version, _)| (path, host, version))
}

/// The descriptors an archive context holds once `__pmLogOpen` has
/// opened it: the temporal index's (-1 for none), the metadata's and the
/// first volume's (libpcp's `tifd`, `mdfd`, `mfd`), and the label's
/// size (where reading starts); `None` where libpcp's opening fails.
pub fn open_fds(name: &str, check_features: bool) -> Option<(i32, i32, i32, usize)> {
    let (_, _, version, (ti, md, m)) = log_open_fds(name, check_features, &Trace::off(), &mut String::new())?;
    Some((ti, md, m, label_size(version)))
}

/// What [`log_open_fds`] gets to: the metadata file to load, the host,
/// the label's version, and the descriptors of [`open_fds`].
type Opened = (String, Vec<u8>, u32, (i32, i32, i32));

/// [`log_open`], with the descriptors of [`open_fds`].
fn log_open_fds(name: &str, check_features: bool, trace: &Trace, out: &mut String) -> Option<Opened> {
    let dir = dirname(name);
    let base = archive_base(name);
    let base = base.file_name().map(|b| b.to_string_lossy().into_owned()).unwrap_or_default();
    let mut fds = Fds(Vec::new());
    let dirfd = fds.open();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            let sts = PmError::from_errno(e.raw_os_error().unwrap_or(2));
            out.push_str(&format!("__pmLogOpen: cannot scan directory \"{dir}\": {sts}\n"));
            return None;
        }
    };
    let (mut index, mut meta, mut minvol) = (None, None, None::<u32>);
    for entry in entries.flatten() {
        let d = entry.file_name().to_string_lossy().into_owned();
        let Some((b, tail)) = split_entry(&d) else { continue };
        if b != base {
            continue;
        }
        let file = format!("{dir}/{d}");
        out.push_str(&format!("__pmLogOpen: inspect file \"{file}\"\n"));
        if tail == "index" || tail == "meta" {
            out.push_str(&fopen_trace(&file, trace));
            if std::fs::File::open(&file).is_err() {
                return None;
            }
            let fd = fds.open();
            if tail == "index" {
                index = Some((file, fd));
            } else {
                meta = Some((file, fd));
            }
        } else if let Ok(v) = tail.parse::<u32>() {
            minvol = Some(minvol.map_or(v, |m| m.min(v)));
        }
    }
    fds.close(dirfd);
    let (Some(minvol), Some((meta, meta_fd))) = (minvol, meta.clone()) else {
        if minvol.is_none() {
            out.push_str(&format!("__pmLogOpen: Not found: data file \"{base}.0\" (or similar)\n"));
        }
        if meta.is_none() {
            out.push_str(&format!("__pmLogOpen: Not found: metadata file \"{base}.meta\"\n"));
        }
        return None;
    };
    // __pmLogChangeVol to the first volume
    let vol_path = format!("{dir}/{base}.{minvol}");
    out.push_str(&fopen_trace(&vol_path, trace));
    let target = fopen_target(&vol_path).filter(|t| std::fs::File::open(t).is_ok())?;
    let fd = fds.open();
    let vol = minvol as i32;
    let Ok(first) = chk_label_trace(&head_of(&target), fd, vol, check_features, trace, out) else { return None };
    out.push_str(&format!("__pmLogChangeVol: change to volume {vol}\n"));
    let mut ti_fd = -1;
    if let Some((path, fd)) = index {
        match chk_label_trace(&head_of(&path), fd, -2, check_features, trace, out) {
            Ok(ti) if ti == first => ti_fd = fd,
            _ => return None,
        }
    }
    let md = chk_label_trace(&head_of(&meta), meta_fd, -1, check_features, trace, out).ok()?;
    (md.version == first.version).then_some((meta, first.host, first.version, (ti_fd, meta_fd, fd)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_split_as_pm_log_base_name() {
        assert_eq!(split_entry("a.0"), Some(("a", "0")));
        assert_eq!(split_entry("a.b.meta.xz"), Some(("a.b", "meta")));
        assert_eq!(split_entry("a.index"), Some(("a", "index")));
        assert_eq!(split_entry("a.config"), None);
        assert_eq!(split_entry("xz.xz"), None);
        assert_eq!(dirname("a"), ".");
        assert_eq!(dirname("d/a"), "d");
        assert_eq!(dirname("/a"), "/");
    }

    /// The trace of opening the v3 fixture: the directory's files in the
    /// order it lists them, the index and metadata opened on descriptors
    /// 4 and 5 in that order, the first volume on 3 once the scan is done.
    #[test]
    fn opening_is_traced_in_directory_order() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let trace = Trace::new(pcp_core::debug::DebugOptions::parse(b"log").unwrap());
        trace_log_open(&format!("{dir}/v3"), true, &trace);
        let text = String::from_utf8(trace.take()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut inspected: Vec<&str> =
            lines.iter().filter_map(|l| l.strip_prefix("__pmLogOpen: inspect file ")).collect();
        let order: Vec<char> = inspected.iter().filter_map(|f| f.chars().rev().nth(1)).filter(|c| *c != '0').collect();
        inspected.sort_unstable();
        assert_eq!(inspected, [format!("\"{dir}/v3.0\""), format!("\"{dir}/v3.index\""), format!("\"{dir}/v3.meta\"")]);
        let (ti, meta) = if order == ['x', 'a'] { (4, 5) } else { (5, 4) };
        let label =
            "[magic=0x50052603 version=3 vol=0 pid=5046 start=18:25:14.786674603 host=vm tz=UTC zoneinfo=:Etc/UTC]";
        let tail = [
            format!("__pmFopen(\"{dir}/v3.0\", \"r\"): no decompress"),
            format!("__pmLogChkLabel: fd=3 vol=0 {label}"),
            "__pmLogChangeVol: change to volume 0".to_owned(),
            format!("__pmLogChkLabel: fd={ti} vol=-2 {}", label.replace("vol=0", "vol=-2")),
            format!("__pmLogChkLabel: fd={meta} vol=-1 {}", label.replace("vol=0", "vol=-1")),
        ];
        assert_eq!(lines[lines.len() - 5..], tail);
        // nothing when the trace is off
        let off = Trace::new(pcp_core::debug::DebugOptions::parse(b"pdu").unwrap());
        trace_log_open(&format!("{dir}/v3"), true, &off);
        assert!(off.take().is_empty());
    }

    /// `__pmLogLoadLabel`'s complaints, as QA 438's damaged labels show
    /// them.
    #[test]
    fn bad_labels_are_described() {
        let trace = Trace::off();
        let check = |data: &[u8]| {
            let mut out = String::new();
            let sts = chk_label_trace(data, 3, 0, true, &trace, &mut out).err();
            (out, sts)
        };
        let mut v2 = vec![0u8; 140];
        v2[0..4].copy_from_slice(&132u32.to_be_bytes());
        v2[4..8].copy_from_slice(&0x5005_2602u32.to_be_bytes());
        v2[128..132].copy_from_slice(&132u32.to_be_bytes());
        v2[24..28].copy_from_slice(b"host");
        v2[88..91].copy_from_slice(b"UTC");
        let said = |s: &str| s.to_owned();
        assert_eq!(check(&v2[..5]), (said("__pmLogLoadLabel: file is empty\n"), Some(PmError::PM_ERR_NODATA)));
        assert_eq!(
            check(&v2[..42]),
            (said("__pmLogLoadLabel: bad label read len=34: expected 120\n"), Some(PmError::PM_ERR_LABEL))
        );
        // a trailer cut short is read over the header word
        assert_eq!(
            check(&v2[..131]),
            (
                said("__pmLogLoadLabel: trailer read -> 3 (expect 4) or bad trailer len=132 (expected 132)\n"),
                Some(PmError::PM_ERR_LABEL)
            )
        );
        let mut bad = v2.clone();
        bad[0..4].copy_from_slice(&64u32.to_be_bytes());
        assert_eq!(check(&bad).0, "__pmLogLoadLabel: bad header len=64 (expected 132)\n");
        bad[7] = 0xff;
        assert_eq!(check(&bad).0, "__pmLogLoadLabel: label version 255 not supported\n");
        assert_eq!(
            check(&v2[..132]),
            (
                said("__pmLogChkLabel: fd=3 vol=0 [magic=0x50052602 version=2 vol=0 pid=0 start=00:00:00.000000000 host=host tz=UTC] file is empty\n"),
                Some(PmError::PM_ERR_NODATA)
            )
        );
        let mut other = v2.clone();
        other[20..24].copy_from_slice(&3u32.to_be_bytes());
        assert_eq!(check(&other).0, "__pmLogChkLabel: fd=3 vol=0 label volume 3 not 0 as expected\n");
    }

    /// A file decompressed by a program looks `PCP_TMPFILE_DIR` up
    /// between `__pmFopen`'s line and the program's; without `-Dlog`
    /// the look-up alone is kept.
    #[test]
    fn compressed_files_look_up_the_temporary_directory() {
        fn fake(name: &str, _: &Trace) -> Vec<u8> {
            format!("pmgetconfig: {name}=/tmp\n").into_bytes()
        }
        let both = Trace::new(pcp_core::debug::DebugOptions::parse(b"config,log").unwrap());
        both.set_config_lookup(fake);
        assert_eq!(
            fopen_trace("a.meta.bz2", &both),
            "__pmFopen(\"a.meta.bz2\", \"r\"): decompress: bzip2\npmgetconfig: PCP_TMPFILE_DIR=/tmp\n\
             __pmLogOpen: uncompress using: bzip2 -dc a.meta.bz2\n"
        );
        // xz is decompressed on the fly, plain files not at all
        assert_eq!(fopen_trace("a.meta.xz", &both), "__pmFopen(\"a.meta.xz\", \"r\"): decompress: xz (on-the-fly)\n");
        let config = both.with_options(pcp_core::debug::DebugOptions::parse(b"config").unwrap());
        assert_eq!(fopen_trace("a.0.lzma", &config), "pmgetconfig: PCP_TMPFILE_DIR=/tmp\n");
        assert_eq!(fopen_trace("a.0.xz", &config), "");
        let logged = "__pmLogOpen: inspect file \"a.0\"\npmgetconfig: X=\n\
                      __pmLogChkLabel: fd=3 vol=0__pmSetVersionIPC: fd=3 version=2\nIPC table fd(PDU version): 3(2,0)\n [magic]\n";
        assert_eq!(
            unlogged_part(logged),
            "pmgetconfig: X=\n__pmSetVersionIPC: fd=3 version=2\nIPC table fd(PDU version): 3(2,0)\n"
        );
    }

    #[test]
    fn features_are_named_highest_first() {
        assert_eq!(features_str(0x8000_0001), "QA bit_00");
        assert_eq!(features_str(0), "");
    }
}
