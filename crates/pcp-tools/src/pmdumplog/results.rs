//! The results dump: each record's value sets, metric by metric and
//! instance by instance.

use super::{Dumper, Selection};
use pcp_archive::meta::InDomSet;
use pcp_archive::raw::{ResultView, SetView, Stamp, ValueView, Version};
use pcp_archive::replay::Replay;
use pcp_core::format::Decimal;
use pcp_core::{Desc, InDom, MetricType, PmError, PmId};
use std::io::Write;

/// A metric's heading and descriptor, for dumping its values.
pub(super) struct MetricInfo {
    pmid: PmId,
    /// `    PMID (names` (the caller closes the parenthesis).
    head: Vec<u8>,
    /// Its names joined with " or ", if it has any.
    pub(super) names: Option<String>,
    pub(super) desc: Option<Desc>,
}

/// Where an instance is in `set`, looked for first where the last one
/// was found (results list instances in the order of their domain);
/// `hint` is left just after it.
fn index_near(set: &InDomSet, inst: i32, hint: &mut usize) -> Option<usize> {
    let i = match set.ids.get(*hint) {
        Some(&id) if id == inst => *hint,
        _ => set.ids.binary_search(&inst).ok()?,
    };
    *hint = i + 1;
    Some(i)
}

/// The start of each instance's line, for one instance set.
pub(super) type InstLines = std::rc::Rc<Vec<Vec<u8>>>;

/// `        inst [ID or "NAME"] value ` for each instance of `set`.
fn inst_lines(set: &InDomSet) -> InstLines {
    let lines = set
        .ids
        .iter()
        .zip(&set.names)
        .map(|(id, name)| {
            let mut l = b"        inst [".to_vec();
            l.extend_from_slice(Decimal::signed(*id as i64).as_bytes());
            l.extend_from_slice(b" or \"");
            l.extend_from_slice(name);
            l.extend_from_slice(b"\"] value ");
            l
        })
        .collect();
    std::rc::Rc::new(lines)
}

impl Dumper<'_> {
    /// The results, one record at a time, as `pmFetchArchive` returns
    /// them, as `what` says: until one beyond its time; with metric
    /// operands, only records holding one of them, cut down to those
    /// (mark records too with `-M`).
    pub(super) fn dump_results(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        reader: &mut Replay,
        what: &Selection,
    ) -> std::io::Result<i32> {
        let Selection { pmids, marks, reverse, done, mut origin, trace } = *what;
        let mut first = true;
        let mut buf = std::mem::take(&mut self.buf);
        let sts = loop {
            let record = reader.fetch_archive_record();
            // (pmFetchArchive moves the context's time to the record's)
            self.fill_record_dumps(origin);
            origin = reader.position();
            err.write_all(&trace.take())?;
            let record = match record {
                Ok(r) => r,
                Err(e) => break e,
            };
            let view = match ResultView::new(record.payload(), self.version) {
                Ok(v) => v,
                Err(e) => break e,
            };
            let when = view.stamp();
            let picked: Option<Vec<SetView>> = if pmids.is_empty() || (view.numpmid() == 0 && marks) {
                None
            } else {
                // cherry-pick the metrics asked for, in the order asked
                let mut slots: Vec<Option<SetView>> = vec![None; pmids.len()];
                let mut picked = 0;
                for set in view.sets() {
                    if let Some(j) = pmids.iter().position(|p| *p == set.pmid) {
                        slots[j] = Some(set);
                        picked += 1;
                    }
                }
                if picked == 0 {
                    continue;
                }
                Some(slots.into_iter().flatten().collect())
            };
            if first && reverse {
                first = false;
                let c = self.zone.ctime(when.sec).unwrap_or_default();
                writeln!(out, "\nLog finished at {:24.24} - dump in reverse order", c)?;
            }
            let past = when.libpcp_cmp(done.into());
            if (!reverse && past.is_gt()) || (reverse && past.is_lt()) {
                break PmError::PM_ERR_EOL;
            }
            buf.clear();
            buf.push(b'\n');
            let size = match (&picked, self.sizes) {
                (_, false) => None,
                (Some(p), true) => Some(record_size(p.iter().copied(), self.version)),
                (None, true) => Some(record_size(view.sets(), self.version)),
            };
            match &picked {
                Some(p) => self.dump_result(out, &mut buf, err, when, size, p.len(), p.iter().copied())?,
                None => self.dump_result(out, &mut buf, err, when, size, view.numpmid(), view.sets())?,
            }
            out.write_all(&buf)?;
        };
        err.write_all(&trace.take())?;
        self.buf = buf;
        if sts != PmError::PM_ERR_EOL {
            writeln!(err, "pmdumplog: pmFetch: {sts}")?;
            return Ok(1);
        }
        Ok(0)
    }

    /// With `-Dcontext`, the lines of a `pmNameAll` answered from what
    /// was worked out before (the first one traced its own).
    fn trace_name_all(&self) {
        if let Some(trace) = &self.context_trace {
            trace.write_bytes(super::WHICH.repeat(3).as_bytes());
        }
    }

    /// What pmdumplog needs of a metric to dump its values, worked out
    /// once: `    PMID (names)`, and its type and instance domain.
    pub(super) fn metric(&mut self, pmid: PmId) -> std::rc::Rc<MetricInfo> {
        if let Some(m) = self.metric_cache.get(&pmid) {
            self.trace_name_all();
            return m.clone();
        }
        let names = self.names.names_of(pmid).ok().map(|n| n.join(" or "));
        let mut head = Vec::new();
        let _ = write!(head, "    {pmid} ({}", names.as_deref().unwrap_or("<nonames>"));
        let desc = self.src.desc(pmid).ok();
        let m = std::rc::Rc::new(MetricInfo { pmid, head, names, desc });
        self.metric_cache.insert(pmid, m.clone());
        m
    }

    /// One result: `n` value sets (`size` is the record's size, with `-s`).
    #[allow(clippy::too_many_arguments)]
    fn dump_result<'s>(
        &mut self,
        out: &mut dyn Write,
        buf: &mut Vec<u8>,
        err: &mut dyn Write,
        when: Stamp,
        size: Option<usize>,
        n: usize,
        sets: impl Iterator<Item = SetView<'s>>,
    ) -> std::io::Result<()> {
        if let Some(size) = size {
            let _ = writeln!(buf, "[{size} bytes]");
        }
        self.stamp(buf, when);
        if n == 0 {
            buf.extend_from_slice(b"  <mark>\n");
            return Ok(());
        }
        buf.push(b' ');
        buf.extend_from_slice(Decimal::unsigned(n as u64).as_bytes());
        buf.extend_from_slice(if n > 1 { b" metrics\n" } else { b" metric\n" });
        let meta = Some(&self.src.meta);
        for (k, vs) in sets.enumerate() {
            // hand on what is made so far now and then: a big record's text
            // need not be held whole
            if buf.len() >= 1 << 16 {
                out.write_all(buf)?;
                buf.clear();
            }
            // records mostly list the same metrics in the same order: try the
            // metric found at this place last time first
            if self.context_trace.is_some() {
                out.write_all(buf)?;
                buf.clear();
            }
            let m = match self.by_place.get(k) {
                Some(m) if m.pmid == vs.pmid => {
                    self.trace_name_all();
                    m.clone()
                }
                _ => {
                    let m = self.metric(vs.pmid);
                    if k < self.by_place.len() {
                        self.by_place[k] = m.clone();
                    } else {
                        self.by_place.push(m.clone());
                    }
                    m
                }
            };
            // (pmNameAll, then pmLookupDesc of a set with values)
            self.which(out, buf, err, usize::from(vs.numval > 0))?;
            if vs.numval == 0 {
                buf.extend_from_slice(&m.head);
                buf.extend_from_slice(b"): No values returned!\n");
                continue;
            }
            if vs.numval < 0 {
                buf.extend_from_slice(&m.head);
                let _ = writeln!(buf, "): {}", PmError::from_code(vs.numval));
                continue;
            }
            let (ty, indom) = match m.desc {
                Some(d) => (d.ty, d.indom),
                None if vs.valfmt == 0 => (MetricType::I32, InDom::NULL),
                None => (MetricType::AGGREGATE, InDom::NULL),
            };
            if ty == MetricType::EVENT || ty == MetricType::HIGHRES_EVENT {
                let highres = ty == MetricType::HIGHRES_EVENT;
                let set = vs.to_set();
                for j in 0..vs.numval as usize {
                    let names = m.names.as_deref().unwrap_or("<nonames>");
                    self.dump_event(out, buf, err, (&set, vs.valfmt), j, names, indom, highres, when.instant())?;
                }
                continue;
            }
            // the instances in force at this time, looked up once a set,
            // and the text before each instance's value made once a set
            let insts =
                if indom.is_null() { None } else { meta.and_then(|m| m.indom_at(indom, Some(when.instant())).ok()) };
            let lines = insts.map(|set| {
                // one instance set kept an instance domain: the one in use
                let key = set as *const InDomSet as usize;
                match self.inst_lines.get(&indom) {
                    Some((k, lines)) if *k == key => lines.clone(),
                    _ => {
                        let lines = inst_lines(set);
                        self.inst_lines.insert(indom, (key, lines.clone()));
                        lines
                    }
                }
            });
            let mut hint = 0usize;
            for (j, (inst, value)) in vs.values().enumerate() {
                if j == 0 {
                    buf.extend_from_slice(&m.head);
                    buf.extend_from_slice(if vs.numval > 1 { b"):\n" } else { b"):" });
                }
                let indent: &[u8] = if j == 0 && vs.numval == 1 { b"" } else { b"       " };
                if indom.is_null() {
                    buf.extend_from_slice(indent);
                    buf.extend_from_slice(b" value ");
                } else {
                    match (insts, &lines) {
                        (Some(set), Some(lines)) if index_near(set, inst, &mut hint).is_some() => {
                            let line = &lines[hint - 1];
                            let line = if indent.is_empty() { &line[7..] } else { &line[..] };
                            // (pmNameInDom, once " inst [" is printed)
                            let at = if self.context_trace.is_some() || self.meta_trace.is_some() {
                                line.iter().position(|&b| b == b'[').map_or(0, |i| i + 1)
                            } else {
                                0
                            };
                            buf.extend_from_slice(&line[..at]);
                            self.name_indom_trace(out, buf, err, indom, when.instant())?;
                            buf.extend_from_slice(&line[at..]);
                        }
                        _ => {
                            buf.extend_from_slice(indent);
                            buf.extend_from_slice(b" inst [");
                            self.name_indom_trace(out, buf, err, indom, when.instant())?;
                            buf.extend_from_slice(Decimal::signed(inst as i64).as_bytes());
                            buf.extend_from_slice(b" or ???] value ");
                        }
                    }
                }
                self.value(buf, value, ty);
                buf.push(b'\n');
            }
        }
        Ok(())
    }
}

/// pmdumplog's idea of a record's size on disk (`do_size`).
fn record_size<'s>(sets: impl Iterator<Item = SetView<'s>>, v: Version) -> usize {
    let mut n = match v {
        Version::V3 => 4 + 12 + 4,
        Version::V2 => 4 + 8 + 4,
    } + 4;
    for vs in sets {
        n += 8;
        if vs.numval > 0 {
            n += 4;
            for (_, value) in vs.values() {
                n += 8;
                if let (true, ValueView::Block(_, data)) = (vs.valfmt != 0, value) {
                    n += (data.len() + 4 + 3) & !3;
                }
            }
        }
    }
    n
}
