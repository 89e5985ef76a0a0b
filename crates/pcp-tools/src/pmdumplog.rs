//! `pmdumplog`: dump the contents of a PCP archive.
//!
//! What works today: the archive label (`-l`, and `-L` with time zones,
//! features and pmlogger's PID), the metric descriptors (`-d`) and the
//! temporal index with its integrity checks (`-t`), in the local zone or
//! the archive's (`-z`) or a given one (`-Z`). The other dumps (results,
//! instance domains, labels, help text) say they are not implemented yet.

use crate::getopt::{self, OptSpec};
use pcp::timezone::Zone;
use pcp_archive::archive::{libpcp_hash_order, Archive};
use pcp_archive::raw::{MetaRecord, Version};
use pcp_core::Timestamp;
use std::ffi::OsString;
use std::io::Write;

const USAGE: &str = include_str!("pmdumplog-usage.txt");

const fn opt(short: char, long: Option<&'static str>, has_arg: bool) -> OptSpec {
    OptSpec { short, long, has_arg }
}

const SPECS: &[OptSpec] = &[
    opt('a', Some("all"), false),
    opt('D', Some("debug"), true),
    opt('d', Some("descs"), false),
    opt('e', Some("labelsets"), false),
    opt('h', Some("helptext"), false),
    opt('I', Some("on-disk-insts"), false),
    opt('i', Some("insts"), false),
    opt('l', Some("label"), false),
    opt('L', Some("Label"), false),
    opt('m', Some("markrecs"), false),
    opt('M', Some("mark"), false),
    opt('n', Some("namespace"), true),
    opt('r', Some("reverse"), false),
    opt('S', Some("start"), true),
    opt('s', Some("sizes"), false),
    opt('T', Some("finish"), true),
    opt('t', Some("index"), false),
    opt('v', Some("verbose"), true),
    opt('x', None, false),
    opt('Z', Some("timezone"), true),
    opt('z', Some("hostzone"), false),
    opt('?', Some("help"), false),
];

/// Run `pmdumplog` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    main(args, out, err).unwrap_or(1)
}

fn main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<i32> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let parsed = getopt::parse(&args, SPECS, "pmdumplog", err);
    let (mut label, mut verbose, mut hostzone, mut index, mut descs) = (false, false, false, false, false);
    let mut zone_arg: Option<String> = None;
    let mut unsupported: Option<char> = None;
    let mut errors = parsed.errors;
    for o in &parsed.opts {
        match o.opt {
            'l' => label = true,
            'L' => {
                label = true;
                verbose = true;
            }
            't' => index = true,
            'd' => descs = true,
            'z' => hostzone = true,
            'Z' => zone_arg = Some(String::from_utf8_lossy(o.arg.as_deref().unwrap_or_default()).into_owned()),
            '?' => errors += 1,
            'D' => {}
            c => {
                unsupported.get_or_insert(c);
            }
        }
    }
    if errors > 0 || parsed.operands.is_empty() {
        err.write_all(USAGE.as_bytes())?;
        return Ok(1);
    }
    if let Some(c) = unsupported {
        writeln!(err, "pmdumplog: -{c} is not implemented in pcp-rs yet")?;
        return Ok(1);
    }
    if parsed.operands.len() > 1 {
        writeln!(err, "pmdumplog: metric name arguments are not implemented in pcp-rs yet")?;
        return Ok(1);
    }
    if !label && !index && !descs {
        writeln!(err, "pmdumplog: dumping results is not implemented in pcp-rs yet (try -l, -L, -d or -t)")?;
        return Ok(1);
    }
    let name = String::from_utf8_lossy(&parsed.operands[0]).into_owned();
    let archive = match Archive::open(&name) {
        Ok(a) => a,
        Err(e) => {
            writeln!(err, "pmdumplog: Cannot open archive \"{name}\": {e}")?;
            return Ok(1);
        }
    };
    let l = archive.label();
    let zone = if let Some(tz) = &zone_arg {
        writeln!(out, "Note: timezone set to \"TZ={tz}\"\n")?;
        Zone::new(tz).unwrap_or_else(|_| Zone::utc())
    } else if hostzone {
        writeln!(
            out,
            "Note: timezone set to local timezone of host \"{}\" from archive\n",
            String::from_utf8_lossy(&l.hostname)
        )?;
        let tz = if l.zoneinfo.is_empty() { &l.timezone } else { &l.zoneinfo };
        Zone::new(&String::from_utf8_lossy(tz)).unwrap_or_else(|_| Zone::utc())
    } else {
        Zone::local()
    };
    if label {
        dump_label(out, &archive, &zone, verbose)?;
    }
    if descs {
        dump_descs(out, &archive)?;
    }
    if index {
        dump_index(out, &archive, &zone)?;
    }
    Ok(0)
}

fn dump_label(out: &mut dyn Write, archive: &Archive, zone: &Zone, verbose: bool) -> std::io::Result<()> {
    let l = archive.label();
    writeln!(out, "Log Label (Log Format Version {})", l.version as u8)?;
    writeln!(out, "Performance metrics from host {}", String::from_utf8_lossy(&l.hostname))?;
    write_when(out, zone, "    commencing ", l.start, l.version)?;
    match archive.end() {
        Ok(end) => write_when(out, zone, "    ending     ", end, l.version)?,
        Err(_) => writeln!(out, "    ending     UNKNOWN")?,
    }
    if verbose {
        if !l.timezone.is_empty() {
            writeln!(out, "Archive timezone: {}", String::from_utf8_lossy(&l.timezone))?;
        }
        if !l.zoneinfo.is_empty() {
            writeln!(out, "Archive zoneinfo: {}", String::from_utf8_lossy(&l.zoneinfo))?;
        }
        if l.features != 0 {
            // no feature bits are defined in 6.0.3: all of them are unknown
            writeln!(out, "Archive features: 0x{:x} [unknown: 0x{:x}]", l.features, l.features)?;
        }
        writeln!(out, "PID for pmlogger: {}", l.pid)?;
    }
    Ok(())
}

/// The descriptors, once per PMID, in the order libpcp's hash table
/// holds them, each with its names from the archive's name space.
fn dump_descs(out: &mut dyn Write, archive: &Archive) -> std::io::Result<()> {
    writeln!(out, "\nDescriptions for Metrics in the Log ...")?;
    let mut descs: Vec<pcp_core::Desc> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut names: Vec<(String, pcp_core::PmId)> = Vec::new();
    for rec in archive.meta() {
        if let MetaRecord::Desc { desc, names: n } = rec {
            if seen.insert(desc.pmid) {
                descs.push(*desc);
            }
            // libpcp keeps each name as a C string: it ends at a NUL
            // (some archives pad names with NULs)
            let c_name = |x: &[u8]| x[..x.iter().position(|&b| b == 0).unwrap_or(x.len())].to_vec();
            names.extend(n.iter().map(|x| (String::from_utf8_lossy(&c_name(x)).into_owned(), desc.pmid)));
        }
    }
    let mut pmns = pcp_pmns::Pmns::new();
    // libpcp builds an archive's name space with __pmAddPMNSNode
    pmns.add_names_front(names.iter().map(|(n, id)| (n.as_str(), *id)));
    let keys: Vec<u32> = descs.iter().map(|d| d.pmid.0).collect();
    for i in libpcp_hash_order(&keys) {
        let d = &descs[i];
        match pmns.names_of(d.pmid) {
            Ok(n) => writeln!(out, "PMID: {} ({})", d.pmid, n.join(" or "))?,
            Err(_) => writeln!(out, "PMID: {} (<noname>)", d.pmid)?,
        }
        write!(out, "{d}")?;
    }
    Ok(())
}

/// `HH:MM:SS.uuuuuu` (v2) or `HH:MM:SS.nnnnnnnnn` (v3) in `zone`.
fn timestamp(zone: &Zone, t: Timestamp, v: Version) -> String {
    let Ok(tm) = zone.localtime(t.sec) else { return "??:??:??".to_string() };
    match v {
        Version::V2 => format!("{:02}:{:02}:{:02}.{:06}", tm.hour, tm.min, tm.sec, t.nsec / 1000),
        Version::V3 => format!("{:02}:{:02}:{:02}.{:09}", tm.hour, tm.min, tm.sec, t.nsec),
    }
}

/// The temporal index, with pmdumplog's integrity checks against the
/// files' sizes.
fn dump_index(out: &mut dyn Write, archive: &Archive, zone: &Zone) -> std::io::Result<()> {
    let v = archive.label().version;
    writeln!(out, "\nTemporal Index")?;
    if v == Version::V3 {
        out.write_all(b"\t")?;
    }
    writeln!(out, "\t\tLog Vol    end(meta)     end(log)")?;
    let entries = archive.index().unwrap_or_default();
    // the file as found, compressed or not, by its decompressed size (as
    // libpcp's __pmStat reports it)
    let size = |suffix: &str| -> Option<u64> {
        let path = pcp_archive::files::find_file(archive.base(), suffix)?;
        pcp_archive::files::content_size(&path).ok()
    };
    let mut meta_size = None;
    let mut log_size = None;
    let mut last: Option<&pcp_archive::raw::IndexEntry> = None;
    for (i, e) in entries.iter().enumerate() {
        writeln!(
            out,
            "{}\t  {:5}  {:11}  {:11}",
            timestamp(zone, e.when, v),
            e.vol,
            e.meta_offset as i64,
            e.data_offset as i64
        )?;
        if i == 0 {
            meta_size = size(".meta");
        }
        if last.is_none_or(|l| l.vol != e.vol) {
            log_size = size(&format!(".{}", e.vol));
            if log_size.is_none() {
                writeln!(out, "\t\tWarning: file missing for log volume {}", e.vol)?;
            }
        }
        if e.when.sec < 0 {
            writeln!(out, "\t\tError: illegal timestamp value ({} sec, {} nsec)", e.when.sec, e.when.nsec)?;
        }
        if let Some(m) = meta_size.filter(|&m| e.meta_offset as i64 > m as i64) {
            writeln!(out, "\t\tError: offset to meta file past end of file ({m})")?;
        }
        if let Some(s) = log_size.filter(|&s| e.data_offset as i64 > s as i64) {
            writeln!(out, "\t\tError: offset to log file past end of file ({s})")?;
        }
        if let Some(l) = last {
            if e.when < l.when {
                writeln!(
                    out,
                    "\t\tError: timestamp went backwards in time {} -> {}",
                    timestamp(zone, l.when, v),
                    timestamp(zone, e.when, v)
                )?;
            }
            if e.vol < l.vol {
                writeln!(out, "\t\tError: volume number decreased")?;
            }
            if e.vol == l.vol && (e.meta_offset as i64) < l.meta_offset as i64 {
                writeln!(out, "\t\tError: offset to meta file decreased")?;
            }
            if e.vol == l.vol && (e.data_offset as i64) < l.data_offset as i64 {
                writeln!(out, "\t\tError: offset to log file decreased")?;
            }
        }
        last = Some(e);
    }
    Ok(())
}

/// `    commencing Sat Nov 21 18:25:14.786674603 2026`: the date from
/// ctime, the time with the archive version's precision, the year.
fn write_when(out: &mut dyn Write, zone: &Zone, prefix: &str, t: Timestamp, v: Version) -> std::io::Result<()> {
    let Ok(ctime) = zone.ctime(t.sec) else {
        return writeln!(out, "{prefix}UNKNOWN");
    };
    writeln!(out, "{prefix}{} {} {:>4.4}", &ctime[..10], timestamp(zone, t, v), ctime.get(20..).unwrap_or(""))
}
