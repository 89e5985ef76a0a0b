//! Runs an archive replay script (see oracle/replay_oracle.c for the
//! language and the output form) through pcp-archive's Replay, printing
//! what the oracle prints with the reference libpcp.

use pcp_archive::archive::{Archive, ArchiveSet};
use pcp_archive::raw::MetaRecord;
use pcp_archive::{Mode, Replay};
use pcp_core::{FetchResult, InDom, PmId, Timestamp, Value};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

fn offset(base: Timestamp, ns: i64) -> Timestamp {
    let mut s = base.sec + ns / 1_000_000_000;
    let mut n = base.nsec as i64 + ns % 1_000_000_000;
    while n < 0 {
        n += 1_000_000_000;
        s -= 1;
    }
    while n >= 1_000_000_000 {
        n -= 1_000_000_000;
        s += 1;
    }
    Timestamp { sec: s, nsec: n as u32 }
}

fn print_result(out: &mut String, r: &FetchResult) {
    let _ = writeln!(out, "R {}.{:09} {}", r.timestamp.sec, r.timestamp.nsec, r.sets.len());
    for set in &r.sets {
        let _ = write!(out, " {} {}", set.pmid, set.numval());
        let vals = set.values.as_deref().unwrap_or(&[]);
        if !vals.is_empty() {
            let _ = write!(out, " {}", set.valfmt() as i32);
        }
        out.push('\n');
        for v in vals {
            match &v.value {
                Value::Insitu(l) => {
                    let _ = writeln!(out, "  {} i {}", v.inst, l);
                }
                Value::Block(b) => {
                    let _ = write!(out, "  {} b {} ", v.inst, b.vtype);
                    if b.data.is_empty() {
                        out.push('-');
                    }
                    for byte in &b.data {
                        let _ = write!(out, "{byte:02x}");
                    }
                    out.push('\n');
                }
            }
        }
    }
}

/// One instance domain's entry in a libpcp instance profile: `include`
/// (all but `list`) or not (only `list`).
struct Profile {
    include: bool,
    list: HashSet<i32>,
}

impl Profile {
    /// `pmAddProfile` (`add`) and `pmDelProfile` on an instance domain,
    /// as libpcp 6.0.3 does them: a new entry starts excluding everything,
    /// whichever is called.
    fn change(map: &mut HashMap<u32, Profile>, indom: u32, add: bool, insts: &[i32]) {
        let p = map.entry(indom).or_insert(Profile { include: false, list: HashSet::new() });
        if insts.is_empty() {
            p.list.clear();
            p.include = add;
        } else if p.include == add {
            // an exclusion list shrinks on add, an inclusion list on delete
            for i in insts {
                p.list.remove(i);
            }
        } else {
            p.list.extend(insts);
        }
    }

    fn wanted(map: &HashMap<u32, Profile>, indom: u32, inst: i32) -> bool {
        match map.get(&indom) {
            None => true,
            Some(p) => p.list.contains(&inst) != p.include,
        }
    }
}

/// Open the archive `name` (or the archives of a comma-separated list or a
/// directory) for replay, as `pmNewContext` does.
fn open(name: &str) -> Result<Replay, pcp_core::PmError> {
    if name.contains(',') || std::path::Path::new(name).is_dir() {
        Replay::with_archives(ArchiveSet::open(name, true)?, true)
    } else {
        Replay::new(Archive::open(name)?)
    }
}

/// The PMIDs with a name the oracle's `pmTraversePMNS` finds (outside
/// domain 511). Over several archives, libpcp hides the non-leaf nodes that
/// archives after the first (in load order) add to the name space, so only
/// the names whose every prefix came from the first archive count.
fn visible_pmids(archives: &ArchiveSet) -> Vec<PmId> {
    let c_str = |n: &[u8]| n[..n.iter().position(|&b| b == 0).unwrap_or(n.len())].to_vec();
    let mut prefixes: HashSet<Vec<u8>> = HashSet::new();
    let mut out = Vec::new();
    for (i, meta) in archives.meta_in_load_order().enumerate() {
        for rec in meta {
            let MetaRecord::Desc { desc, names } = rec else { continue };
            for name in names.iter().map(|n| c_str(n)) {
                let inner: Vec<Vec<u8>> =
                    name.iter().enumerate().filter(|(_, &b)| b == b'.').map(|(at, _)| name[..at].to_vec()).collect();
                if i == 0 {
                    prefixes.extend(inner);
                } else if !inner.iter().all(|p| prefixes.contains(p)) {
                    continue;
                }
                if desc.pmid.domain() != 511 {
                    out.push(desc.pmid);
                }
            }
        }
    }
    out
}

/// Run `script` against the archive `name` (or several, comma-separated);
/// `wrap` is PCP_COUNTER_WRAP.
pub fn run(name: &str, script: &str, wrap: bool) -> String {
    let mut out = String::new();
    let mut replay = match open(name) {
        Ok(r) => r,
        Err(e) => return format!("context E {}\n", e.code()),
    };
    let mut all = visible_pmids(replay.archives());
    all.sort();
    all.dedup();
    replay.set_counter_wrap(wrap);
    let start = replay.position();
    let mut list: Vec<PmId> = Vec::new();
    let mut profile: HashMap<u32, Profile> = HashMap::new();
    for line in script.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() || words[0].starts_with('#') {
            continue;
        }
        let _ = writeln!(out, "> {}", words.join(" "));
        match (words[0], words.len()) {
            ("pmids", _) => {
                let first = if words.get(1) == Some(&"all") { 2 } else { 1 };
                list = if first == 2 { all.clone() } else { Vec::new() };
                list.extend(words[first..].iter().map(|w| PmId(u32::from_str_radix(w, 16).unwrap_or(0))));
            }
            ("mode", 4) => {
                let mode = match words[1] {
                    "forw" => Mode::Forw,
                    "back" => Mode::Back,
                    _ => Mode::Interp,
                };
                let ns: i64 = words[2][1..].parse().unwrap_or(0);
                let delta: i64 = words[3].parse().unwrap_or(0);
                let base = if words[2].starts_with('e') {
                    match replay.end() {
                        Ok(t) => t,
                        Err(e) => {
                            let _ = writeln!(out, "E {}", e.code());
                            start
                        }
                    }
                } else {
                    start
                };
                if let Err(e) = replay.set_mode(mode, offset(base, ns), delta) {
                    let _ = writeln!(out, "E {}", e.code());
                }
            }
            ("fetch" | "archive", 2) => {
                let count: u64 = words[1].parse().unwrap_or(0);
                for _ in 0..count {
                    let res = if words[0] == "archive" {
                        replay.fetch_archive()
                    } else {
                        let wanted = |indom: InDom, inst: i32| Profile::wanted(&profile, indom.0, inst);
                        replay.fetch(&list, &wanted)
                    };
                    match res {
                        Ok(r) => print_result(&mut out, &r),
                        Err(e) => {
                            let _ = writeln!(out, "E {}", e.code());
                            break;
                        }
                    }
                }
            }
            ("fetchq", 2) => {
                let count: u64 = words[1].parse().unwrap_or(0);
                let (mut got, mut last) = (0u64, Timestamp::default());
                let wanted = |indom: InDom, inst: i32| Profile::wanted(&profile, indom.0, inst);
                for _ in 0..count {
                    match replay.fetch(&list, &wanted) {
                        Ok(r) => {
                            got += 1;
                            last = r.timestamp;
                        }
                        Err(_) => break,
                    }
                }
                let _ = writeln!(out, "Q {got} {}.{:09}", last.sec, last.nsec);
            }
            ("exclude" | "only" | "include", n) if n >= 2 => {
                let (d, s) = words[1].split_once('.').unwrap_or(("0", "0"));
                let indom = InDom::new(d.parse().unwrap_or(0), s.parse().unwrap_or(0));
                let insts: Vec<i32> = words[2..].iter().filter_map(|w| w.parse().ok()).collect();
                match words[0] {
                    "only" => {
                        Profile::change(&mut profile, indom.0, false, &[]);
                        Profile::change(&mut profile, indom.0, true, &insts);
                    }
                    "include" => Profile::change(&mut profile, indom.0, true, &insts),
                    _ => Profile::change(&mut profile, indom.0, false, &insts),
                }
            }
            ("autoprofile", _) => {
                let indom = all.iter().find_map(|p| replay.desc(*p).map(|d| d.indom).filter(|i| *i != InDom::NULL));
                if let Some(indom) = indom {
                    let mut odd: Vec<i32> = replay
                        .archives()
                        .members()
                        .iter()
                        .flat_map(|a| a.meta())
                        .filter_map(|m| match m {
                            MetaRecord::InDom { indom: i, instances, .. } if *i == indom => Some(instances),
                            _ => None,
                        })
                        .map(|insts| insts.get().expect("the record's instances"))
                        .flat_map(|insts| {
                            insts
                                .iter()
                                .filter(|(id, name)| id & 1 == 1 && name.is_some())
                                .map(|(id, _)| id)
                                .collect::<Vec<_>>()
                        })
                        .collect();
                    odd.sort_unstable();
                    odd.dedup();
                    let _ = writeln!(out, "indom {indom}");
                    Profile::change(&mut profile, indom.0, true, &[]);
                    if !odd.is_empty() {
                        Profile::change(&mut profile, indom.0, false, &odd);
                    }
                }
            }
            ("reopen", _) => {
                let fresh = open(name);
                match fresh {
                    Ok(mut r) => {
                        r.set_counter_wrap(wrap);
                        replay = r;
                        profile.clear();
                    }
                    Err(e) => {
                        let _ = writeln!(out, "context E {}", e.code());
                        return out;
                    }
                }
            }
            ("end", _) => match replay.end() {
                Ok(t) => {
                    let _ = writeln!(out, "T {}.{:09}", t.sec, t.nsec);
                }
                Err(e) => {
                    let _ = writeln!(out, "E {}", e.code());
                }
            },
            _ => out.push_str("? bad command\n"),
        }
    }
    out
}
