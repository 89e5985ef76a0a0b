//! The metadata dumps: the label (`-l`, `-L`), descriptors (`-d`), label
//! sets (`-e`), help text (`-h`) and instance domains (`-I`, `-i`).

use super::format::timestamp;
use super::{Dumper, LOG_FEATURE_QA};
use pcp_archive::archive::libpcp_hash_order;
use pcp_archive::labels::LabelEntry;
use pcp_archive::meta::text_kind;
use pcp_archive::raw::{Label, MetaRecord};
use pcp_core::labels::{flags as label_type, LabelSet};
use pcp_core::{Desc, InDom, PmId, Timestamp};
use std::io::Write;

impl Dumper<'_> {
    pub(super) fn dump_label(
        &self,
        out: &mut dyn Write,
        l: &Label,
        end: Option<Timestamp>,
        verbose: bool,
    ) -> std::io::Result<()> {
        writeln!(out, "Log Label (Log Format Version {})", l.version as u8)?;
        writeln!(out, "Performance metrics from host {}", String::from_utf8_lossy(&l.hostname))?;
        self.write_when(out, "    commencing ", l.start)?;
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
    pub(super) fn dump_descs(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nDescriptions for Metrics in the Log ...")?;
        let src = self.src;
        let descs: Vec<Desc> = src.meta.descs().copied().collect();
        let keys: Vec<u32> = descs.iter().map(|d| d.pmid.0).collect();
        for i in libpcp_hash_order(&keys) {
            let d = &descs[i];
            match self.names.names_of(d.pmid) {
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

    /// `-I`: the instance domain records as they are in `.meta`.
    pub(super) fn dump_disk_indoms(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "\nInstance Domains on-disk ...")?;
        let src = self.src;
        for rec in src.archive.meta() {
            let MetaRecord::InDom { when, indom, instances, delta, count } = rec else { continue };
            let mut buf = Vec::new();
            self.stamp(&mut buf, *when);
            let _ = write!(buf, " InDom: {indom}");
            if *delta {
                buf.extend_from_slice(b" delta");
            }
            let _ = writeln!(buf, " {count} instances");
            // (read with the record: pmdumplog opens archives so)
            let instances = instances.get().map_err(|e| std::io::Error::other(e.to_string()))?;
            for (id, name) in instances.iter() {
                match (delta, name) {
                    (true, None) => {
                        let _ = writeln!(buf, "   del {id}");
                    }
                    (true, Some(n)) => {
                        let _ = write!(buf, "   add {id} or \"");
                        buf.extend_from_slice(n);
                        buf.extend_from_slice(b"\"\n");
                    }
                    (false, n) => {
                        let _ = write!(buf, "   {id} or \"");
                        buf.extend_from_slice(n.unwrap_or_default());
                        buf.extend_from_slice(b"\"\n");
                    }
                }
            }
            out.write_all(&buf)?;
        }
        Ok(())
    }

    /// `-i`: each instance domain's history as libpcp holds it, in its
    /// hash table's order, oldest set first.
    pub(super) fn dump_indoms(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
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
                }
                let set = set.map_err(|e| std::io::Error::other(e.to_string()))?;
                self.stamp(&mut buf, set.when);
                let _ = writeln!(buf, " {} instances", set.ids.len());
                for (id, name) in set.ids.iter().zip(&set.names) {
                    let _ = write!(buf, "   {id} or \"");
                    buf.extend_from_slice(name);
                    buf.extend_from_slice(b"\"\n");
                }
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
