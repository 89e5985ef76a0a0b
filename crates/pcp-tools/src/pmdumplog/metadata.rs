//! The metadata dumps: the label (`-l`, `-L`), descriptors (`-d`), label
//! sets (`-e`), help text (`-h`) and instance domains (`-I`, `-i`).

use super::format::timestamp;
use super::{Dumper, LOG_FEATURE_QA};
use pcp_archive::archive::libpcp_hash_order;
use pcp_archive::labels::LabelEntry;
use pcp_archive::meta::text_kind;
use pcp_archive::raw::{Label, Stamp, Version};
use pcp_core::labels::{flags as label_type, LabelSet};
use pcp_core::{Desc, InDom, PmError, PmId, Timestamp};
use std::io::{Read, Write};

impl Dumper<'_> {
    pub(super) fn dump_label(
        &self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        l: &Label,
        end: &mut dyn FnMut() -> (Option<Timestamp>, Vec<u8>),
        verbose: bool,
    ) -> std::io::Result<()> {
        writeln!(out, "Log Label (Log Format Version {})", l.version as u8)?;
        writeln!(out, "Performance metrics from host {}", String::from_utf8_lossy(&l.hostname))?;
        self.write_when(out, "    commencing ", l.start)?;
        // (the end libpcp looks for again: the last volume opened again
        // to see whether it has grown)
        self.which(out, &mut Vec::new(), err, 1)?;
        let (end, traced) = end();
        err.write_all(&traced)?;
        match end {
            Some(end) => self.write_when(out, "    ending     ", end)?,
            None => writeln!(out, "    ending     UNKNOWN")?,
        }
        if verbose {
            if !l.timezone.is_empty() {
                writeln!(out, "Archive timezone: {}", String::from_utf8_lossy(&l.timezone))?;
            }
            if !l.zoneinfo.is_empty() {
                writeln!(out, "Archive zoneinfo: {}", String::from_utf8_lossy(&l.zoneinfo))?;
            }
            if l.features != 0 {
                write!(out, "Archive features: 0x{:x}", l.features)?;
                let unknown = l.features & !LOG_FEATURE_QA;
                if unknown != 0 {
                    let bits: Vec<String> =
                        (0..31).rev().filter(|b| unknown & (1 << b) != 0).map(|b| format!("bit_{b:02}")).collect();
                    write!(out, " [unknown: {}]", bits.join(" "))?;
                }
                writeln!(out)?;
            }
            writeln!(out, "PID for pmlogger: {}", l.pid)?;
        }
        Ok(())
    }

    /// `    commencing Sat Nov 21 18:25:14.786674603 2026`.
    fn write_when(&self, out: &mut dyn Write, prefix: &str, t: Timestamp) -> std::io::Result<()> {
        let Ok(ctime) = self.zone.ctime(t.sec) else {
            return writeln!(out, "{prefix}UNKNOWN");
        };
        write!(
            out,
            "{prefix}{} {} {:>4.4}",
            &ctime[..10],
            timestamp(&self.zone, t, self.version),
            ctime.get(20..).unwrap_or("")
        )?;
        if self.xflag >= 3 {
            write!(out, " {}", t.sec as u64)?;
        }
        writeln!(out)
    }

    /// The descriptors, once per PMID, in the order libpcp's hash table
    /// holds them, each with its names.
    pub(super) fn dump_descs(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nDescriptions for Metrics in the Log ...")?;
        let src = self.src;
        let descs: Vec<Desc> = src.meta.descs().copied().collect();
        let keys: Vec<u32> = descs.iter().map(|d| d.pmid.0).collect();
        for i in libpcp_hash_order(&keys) {
            let d = &descs[i];
            let names = self.names.names_of(d.pmid);
            // (what pmNameAll traced)
            self.flush_trace(out, &mut Vec::new(), err)?;
            match names {
                Ok(n) => writeln!(out, "PMID: {} ({})", d.pmid, n.join(" or "))?,
                Err(_) => writeln!(out, "PMID: {} (<noname>)", d.pmid)?,
            }
            write!(out, "{d}")?;
        }
        Ok(())
    }

    /// `-e`: the label sets, by time, then type, then identifier.
    pub(super) fn dump_labelsets(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nMetric Labels in the Log ...")?;
        let idx = &self.src.labels;
        let mut times: Vec<Timestamp> =
            idx.chains().flat_map(|(_, _, c)| c.iter().map(|e| e.when)).filter(|t| *t > Timestamp::default()).collect();
        times.sort();
        times.dedup();
        let order = [
            label_type::CONTEXT,
            label_type::DOMAIN,
            label_type::CLUSTER,
            label_type::ITEM,
            label_type::INDOM,
            label_type::INSTANCES,
        ];
        for t in times {
            let mut buf = Vec::new();
            self.stamp(&mut buf, t);
            buf.push(b'\n');
            for ty in order {
                let ty = u32::from(ty);
                let chains: Vec<(u32, &[LabelEntry])> = idx.chains_of(ty).collect();
                // context labels: every chain in turn; others: one chain a
                // identifier (the first met), by increasing identifier
                let mut picked = Vec::new();
                if ty == u32::from(label_type::CONTEXT) {
                    picked.extend(chains.iter().copied());
                } else {
                    let mut prev: Option<u32> = None;
                    loop {
                        let next = chains.iter().filter(|c| prev.is_none_or(|p| c.0 > p)).fold(
                            None::<&(u32, &[LabelEntry])>,
                            |best, c| match best {
                                Some(b) if b.0 <= c.0 => Some(b),
                                _ => Some(c),
                            },
                        );
                        let Some(c) = next else { break };
                        picked.push(*c);
                        prev = Some(c.0);
                    }
                }
                for (ident, entries) in picked {
                    for e in entries.iter().filter(|e| e.when == t) {
                        print_label_sets(&mut buf, ident, ty, &e.sets);
                    }
                }
            }
            out.write_all(&buf)?;
        }
        Ok(())
    }

    /// `-h`: help text by kind (metrics, then instance domains), then
    /// identifier, one-line text before full text.
    pub(super) fn dump_help(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nMetric Help Text in the Log ...")?;
        let src = self.src;
        for what in [text_kind::PMID, text_kind::INDOM] {
            let mut items: Vec<(u32, u32, &[u8])> = src
                .meta
                .texts()
                .filter(|(k, _, _)| *k == what | text_kind::ONELINE || *k == what | text_kind::HELP)
                .map(|(k, i, t)| (i, if k & text_kind::ONELINE != 0 { 0 } else { 1 }, t))
                .collect();
            items.sort_by_key(|(i, c, _)| (*i, *c));
            for (ident, class, text) in items {
                if what == text_kind::PMID {
                    write!(out, "PMID: {}", PmId(ident))?;
                } else {
                    write!(out, "InDom: {}", InDom(ident))?;
                }
                let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];
                if class == 0 {
                    out.write_all(b" [")?;
                    out.write_all(text)?;
                    out.write_all(b"]")?;
                } else {
                    out.write_all(b"\n")?;
                    out.write_all(text)?;
                }
                writeln!(out)?;
            }
        }
        Ok(())
    }

    /// `-I`: `dumpDiskInDom`, the instance domain records as a walk over
    /// `.meta` by each record's length words finds them (not as the
    /// archive was loaded, which reads descriptors by their contents: a
    /// length word that disagrees sends this walk elsewhere). A problem
    /// ends the walk with a "Botch" on stderr; a record that does not
    /// decode ends pmdumplog (`Some` exit status).
    pub(super) fn dump_disk_indoms(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> std::io::Result<Option<i32>> {
        writeln!(out, "\nInstance Domains on-disk ...")?;
        let meta = pcp_archive::files::find_file(self.src.archive.base(), ".meta")
            .and_then(|p| pcp_archive::files::open(&p).ok())
            .and_then(|mut f| {
                let mut buf = Vec::new();
                f.read_to_end(&mut buf).ok().map(|_| buf)
            })
            .unwrap_or_default();
        let word = |at: usize| meta.get(at..at + 4).map(|w| i32::from_be_bytes([w[0], w[1], w[2], w[3]]));
        let mut pos = match self.version {
            Version::V2 => 132,
            Version::V3 => 808,
        };
        loop {
            let (Some(len), Some(ty)) = (word(pos), word(pos + 4)) else {
                // the end of the file (a header cut short reads as it)
                return Ok(None);
            };
            pos += 8;
            if len <= 0 {
                out.flush()?;
                writeln!(err, "dumpDiskInDom: Botch: hdr.len < 0 ({len})")?;
                return Ok(None);
            }
            // the body's length as C's size_t, and as the int the loader takes
            let rlen = (len as i64 - 12) as i32;
            if matches!(ty, 2 | 5 | 6) {
                match disk_indom(meta.get(pos..).unwrap_or_default(), rlen, ty) {
                    Err(e) => {
                        out.flush()?;
                        writeln!(err, "dumpDiskInDom: __pmLogLoadInDom failed: {e}")?;
                        return Ok(Some(1));
                    }
                    Ok(lid) => {
                        let mut buf = Vec::new();
                        self.stamp(&mut buf, lid.when);
                        let _ = write!(buf, " InDom: {}", lid.indom);
                        if ty == 6 {
                            buf.extend_from_slice(b" delta");
                        }
                        let _ = writeln!(buf, " {} instances", lid.numinst);
                        for (id, name) in &lid.instances {
                            match (ty, name) {
                                (6, None) => {
                                    let _ = writeln!(buf, "   del {id}");
                                }
                                (6, Some(n)) => {
                                    let _ = write!(buf, "   add {id} or \"");
                                    buf.extend_from_slice(n);
                                    buf.extend_from_slice(b"\"\n");
                                }
                                (_, n) => {
                                    let _ = write!(buf, "   {id} or \"");
                                    buf.extend_from_slice(n.as_deref().unwrap_or_default());
                                    buf.extend_from_slice(b"\"\n");
                                }
                            }
                        }
                        out.write_all(&buf)?;
                        if lid.numinst > 0 {
                            out.flush()?;
                        }
                        pos += rlen as usize;
                    }
                }
            } else {
                // fseek(rlen, SEEK_CUR), which fails before the start
                let to = pos as i64 + (len as i64 - 12);
                if to >= 0 {
                    pos = to as usize;
                }
            }
            let Some(check) = word(pos) else {
                let n = meta.len().saturating_sub(pos).min(4);
                out.flush()?;
                writeln!(err, "dumpDiskInDom: Botch: trailer __pmFread(8) -> {n}")?;
                return Ok(None);
            };
            pos += 4;
            if check != len {
                out.flush()?;
                writeln!(err, "dumpDiskInDom: Botch: trailer len ({check}) != hdr len ({len})")?;
                return Ok(None);
            }
        }
    }

    /// `-i`: each instance domain's history as libpcp holds it, in its
    /// hash table's order, oldest set first.
    /// pmdumplog flushes standard output after each instance set, so what
    /// is traced meanwhile lands between them.
    pub(super) fn dump_indoms(&mut self, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nInstance Domains in the Log ...")?;
        let meta = &self.src.meta;
        let keys: Vec<u32> = meta.indom_order().iter().map(|i| i.0).collect();
        for i in libpcp_hash_order(&keys) {
            let indom = meta.indom_order()[i];
            let mut buf = Vec::new();
            let _ = writeln!(buf, "InDom: {indom}");
            for (k, set) in meta.indom_history(indom).enumerate() {
                if let Some(trace) = &self.meta_trace {
                    meta.trace_undelta_set(indom, k, trace);
                    err.write_all(&trace.take())?;
                }
                let set = set.map_err(|e| std::io::Error::other(e.to_string()))?;
                self.stamp(&mut buf, set.stamp);
                let _ = writeln!(buf, " {} instances", set.ids.len());
                for (id, name) in set.ids.iter().zip(&set.names) {
                    let _ = write!(buf, "   {id} or \"");
                    buf.extend_from_slice(name);
                    buf.extend_from_slice(b"\"\n");
                }
                out.write_all(&buf)?;
                out.flush()?;
                buf.clear();
            }
            out.write_all(&buf)?;
        }
        Ok(())
    }
}

/// `pmPrintLabelSets`.
fn print_label_sets(buf: &mut Vec<u8>, ident: u32, ty: u32, sets: &[LabelSet]) {
    let is = |t: u8| ty == u32::from(t);
    let id = if is(label_type::DOMAIN) {
        format!("Domain {ident}")
    } else if is(label_type::INDOM) || is(label_type::INSTANCES) {
        format!("InDom {}", InDom(ident))
    } else if is(label_type::CLUSTER) {
        let s = PmId(ident).to_string();
        format!("Cluster {}", &s[..s.rfind('.').unwrap_or(s.len())])
    } else if is(label_type::ITEM) {
        format!("PMID {}", PmId(ident))
    } else if is(label_type::CONTEXT) {
        "Context".to_string()
    } else {
        String::new()
    };
    for s in sets {
        let json = &s.json[..s.json.iter().position(|&b| b == 0).unwrap_or(s.json.len())];
        if ty & u32::from(label_type::INSTANCES) != 0 {
            let _ = write!(buf, "    {id}[{}] labels ({} bytes): ", s.inst as u32, s.json.len());
        } else {
            let _ = write!(buf, "    {id} labels ({} bytes): ", s.json.len());
        }
        buf.extend_from_slice(json);
        buf.push(b'\n');
        for (i, l) in s.labels.iter().enumerate() {
            let f = l.flags;
            let mut kind = match f & !(label_type::COMPOUND | label_type::OPTIONAL) {
                label_type::CONTEXT => "context",
                label_type::DOMAIN => "domain",
                label_type::INDOM => "indom",
                label_type::CLUSTER => "cluster",
                label_type::ITEM => "pmid",
                label_type::INSTANCES => "instances",
                _ => "?",
            }
            .to_string();
            if f & label_type::COMPOUND != 0 {
                kind.push_str(",compound");
            }
            if f & label_type::OPTIONAL != 0 {
                kind.push_str(",optional");
            }
            let _ = writeln!(
                buf,
                "        [{i}] name({},{}) : value({},{}) [{kind}]",
                l.name, l.namelen, l.value, l.valuelen
            );
        }
    }
}

/// An instance domain record as `__pmLogLoadInDom` reads it for
/// pmdumplog's `-I`.
struct DiskInDom {
    /// The time, its nanoseconds as the record has them (not carried into
    /// the seconds, as libpcp leaves them).
    when: Stamp,
    indom: InDom,
    numinst: i32,
    /// Each instance and its name (`None`: deleted, in a delta).
    instances: Vec<(i32, Option<Vec<u8>>)>,
}

/// `__pmLogLoadInDom` of the `rlen` bytes at the start of `body` as a
/// record of type `ty` (2: version 2; 5, 6: version 3, 6 a delta), the
/// type deciding the layout. Out of memory for a negative length,
/// `PM_ERR_LOGREC` for a body cut short, a negative instance or a name
/// offset outside the record. (Where libpcp would read past the bytes it
/// read, zeros are read here.)
fn disk_indom(body: &[u8], rlen: i32, ty: i32) -> Result<DiskInDom, PmError> {
    const ENOMEM: i32 = 12;
    let Ok(n) = usize::try_from(rlen) else {
        return Err(PmError::from_errno(ENOMEM));
    };
    let logrec = || PmError::PM_ERR_LOGREC;
    let body = body.get(..n).ok_or_else(logrec)?;
    let word = |i: usize| body.get(4 * i..4 * i + 4).map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]));
    let (when, fixed) = if ty == 2 {
        let usec = word(1);
        (Stamp { sec: i64::from(word(0) as i32), nsec: usec.wrapping_mul(1000) as i32 }, 2)
    } else {
        // the seconds' two words in the order libpcp on a little-endian
        // host reads them (see pcp_archive::raw)
        (Stamp { sec: ((u64::from(word(1)) << 32) | u64::from(word(0))) as i64, nsec: word(2) as i32 }, 3)
    };
    let indom = InDom(word(fixed));
    let numinst = word(fixed + 1) as i32;
    let mut instances = Vec::new();
    if numinst > 0 {
        let count = numinst as usize;
        let ids_at = fixed + 2;
        let names_at = 4 * (ids_at + 2 * count);
        let max_idx = rlen.wrapping_sub(4 * (fixed as i32 + 2)).wrapping_sub(numinst.wrapping_mul(8));
        for i in 0..count {
            let id = word(ids_at + i) as i32;
            let idx = word(ids_at + count + i) as i32;
            if id < 0 {
                return Err(logrec());
            }
            let name = if idx >= 0 {
                if idx > max_idx {
                    return Err(logrec());
                }
                let from = body.get(names_at + idx as usize..).unwrap_or_default();
                Some(from[..from.iter().position(|&b| b == 0).unwrap_or(from.len())].to_vec())
            } else if ty == 6 && idx == -1 {
                None
            } else {
                return Err(logrec());
            };
            instances.push((id, name));
        }
    }
    Ok(DiskInDom { when, indom, numinst, instances })
}
