//! `pmdumplog`: dump the contents of a PCP archive.
//!
//! What works today: the archive label (`-l`, and `-L` with time zones,
//! features and pmlogger's PID), in the local zone or the archive's (`-z`)
//! or a given one (`-Z`). The other dumps (results, descriptors, instance
//! domains, labels, help text, the index) say they are not implemented yet.

use crate::getopt::{self, OptSpec};
use pcp::timezone::Zone;
use pcp_archive::archive::Archive;
use pcp_archive::raw::Version;
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
    let (mut label, mut verbose, mut hostzone) = (false, false, false);
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
    if !label {
        writeln!(err, "pmdumplog: dumping results is not implemented in pcp-rs yet (try -l or -L)")?;
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
    writeln!(out, "Log Label (Log Format Version {})", l.version as u8)?;
    writeln!(out, "Performance metrics from host {}", String::from_utf8_lossy(&l.hostname))?;
    write_when(out, &zone, "    commencing ", l.start, l.version)?;
    match archive.end() {
        Ok(end) => write_when(out, &zone, "    ending     ", end, l.version)?,
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
    Ok(0)
}

/// `    commencing Sat Nov 21 18:25:14.786674603 2026`: the date from
/// ctime, the time with the archive version's precision, the year.
fn write_when(out: &mut dyn Write, zone: &Zone, prefix: &str, t: Timestamp, v: Version) -> std::io::Result<()> {
    let (Ok(ctime), Ok(tm)) = (zone.ctime(t.sec), zone.localtime(t.sec)) else {
        return writeln!(out, "{prefix}UNKNOWN");
    };
    let frac = match v {
        Version::V2 => format!("{:06}", t.nsec / 1000),
        Version::V3 => format!("{:09}", t.nsec),
    };
    writeln!(
        out,
        "{prefix}{} {:02}:{:02}:{:02}.{frac} {:>4.4}",
        &ctime[..10],
        tm.hour,
        tm.min,
        tm.sec,
        ctime.get(20..).unwrap_or("")
    )
}
