//! The fetch traces: `-Dfetch`'s "pmFetch returns ..." with the result,
//! and `-Dpdu`'s dump of each result pmcd sends, both in libpcp's
//! `__pmPrintResult` form, which names every metric and instance.

use super::Context;
use pcp_core::debug::DebugFlag;
use pcp_core::{
    Desc, FetchResult, InDom, LocalTime, MetricType, PmError, PmId, Timestamp, ValueFormat, ValueSet, PM_IN_NULL,
};
use std::io::Write;

/// What libpcp prints for the address of a result: a pointer, here a
/// made-up one (QA's filters take any).
const RESULT_ADDRESS: &str = "0x5600000c0de0";

/// `PMCD_ADD_AGENT`, `PMCD_RESTART_AGENT`, `PMCD_DROP_AGENT`.
const AGENT_BITS: [(i32, &str); 3] = [(1, " added"), (2, " restarted"), (4, " dropped")];
const PMCD_LABEL_CHANGE: i32 = 1 << 3;
const PMCD_NAMES_CHANGE: i32 = 1 << 4;

impl Context {
    /// After the source fetched: under `-Dpdu` a host context dumps the
    /// result pmcd sent (libpcp does as it decodes it, before derived
    /// metrics are evaluated over it).
    pub(super) fn trace_received(&self) {
        let Some(h) = self.host_source() else { return };
        if let Some((received, sptr)) = h.take_received() {
            let mut text = Vec::new();
            h.quietly(|| self.dump_result(&received, &sptr, &mut text));
            self.trace().write_bytes(&text);
        }
    }

    /// After a fetch (`pmFetch`'s end): under `-Dfetch` the outcome, with
    /// pmcd's state changes.
    pub(super) fn trace_fetched(&self, fetched: Result<&FetchResult, PmError>) {
        let (changed, mut sptr) = match self.host_source().and_then(|h| h.take_traced()) {
            Some(t) => (t.changed, t.sptr),
            None => (0, Vec::new()),
        };
        if !self.trace().on(DebugFlag::Fetch) {
            return;
        }
        // (derived metrics' values are the context's own)
        sptr.retain(|&p| !self.is_derived_here(p));
        self.trace_outcome(fetched, changed, &sptr);
    }

    /// `-Dfetch`'s lines for what a fetch returned (`changed`: pmcd's
    /// state-change bits; `sptr`: metrics shown as in static blocks).
    fn trace_outcome(&self, fetched: Result<&FetchResult, PmError>, changed: i32, sptr: &[PmId]) {
        let mut text = b"pmFetch returns ...\n".to_vec();
        match fetched {
            Ok(r) => {
                if changed > 0 {
                    state_changes(&mut text, changed);
                }
                match self.host_source() {
                    Some(h) => h.quietly(|| self.dump_result(r, sptr, &mut text)),
                    None => self.dump_result(r, sptr, &mut text),
                }
            }
            Err(e) => {
                let _ = writeln!(text, "Error: {e}");
            }
        }
        self.trace().write_bytes(&text);
    }

    /// Both traces of a fetch made straight from pmcd (no derived
    /// metrics in it).
    pub(crate) fn trace_host_fetch(&self, fetched: Result<&FetchResult, PmError>) {
        if fetched.is_ok() {
            self.trace_received();
        }
        self.trace_fetched(fetched);
    }

    /// Before a store: under `-Dpdu` a host context dumps the values it
    /// sends (libpcp does as it sends them).
    pub(super) fn trace_store(&self, values: &FetchResult) {
        let Some(h) = self.host_source() else { return };
        let mut text = Vec::new();
        h.quietly(|| self.dump_result(values, &[], &mut text));
        self.trace().write_bytes(&text);
    }

    /// Trace `fetched` as `pmFetch` traces what it returns (`-Dfetch`),
    /// with the context at the result's time while instances are named
    /// (as a fetch would have put it); the context's time does not move.
    /// For a tool that read ahead (see [`Context::first_each`]) and now
    /// uses one answer where its C original called `pmSetMode` and
    /// `pmFetch` (whose `-Dcontext` lines come first).
    #[doc(hidden)] // tool support
    pub fn trace_read_ahead(&mut self, fetched: &pcp_core::PmResult<FetchResult>) {
        // (pmSetMode, then pmFetch)
        self.trace_which(2);
        if !self.trace().on(DebugFlag::Fetch) {
            return;
        }
        let keep = self.origin;
        let mut changed = 0;
        if let Ok(r) = fetched {
            self.origin = r.timestamp;
            // libpcp's fetch from a record returns 1 (shown as an agent
            // added) when no metric has values and one of those asked
            // for (a derived metric's operands too) is asked for the
            // first time in the process
            let mut asked = Vec::new();
            for set in &r.sets {
                asked.push(set.pmid);
                asked.extend(self.derived_operands(set.pmid, false).unwrap_or_default());
            }
            let first = asked.into_iter().fold(false, |first, p| self.fetched_as_recorded.insert(p) | first);
            if first && r.sets.iter().all(|s| s.numval() <= 0) {
                changed = 1;
            }
        }
        self.trace_outcome(fetched.as_ref().map_err(|e| *e), changed, &[]);
        self.origin = keep;
    }

    /// Under `-Dpdu` over archives, the dumps of the records read since
    /// last asked (libpcp's decoding dumps each), put where each was read,
    /// its instances named at `when` (the context's time while libpcp
    /// read them).
    pub(super) fn fill_record_dumps(&mut self, when: Timestamp) {
        let trace = self.trace().clone();
        if !trace.has_deferred() {
            return;
        }
        let keep = std::mem::replace(&mut self.origin, when);
        trace.fill_results(|r, sptr| {
            let mut text = Vec::new();
            self.dump_result(r, sptr, &mut text);
            text
        });
        self.origin = keep;
    }

    /// `__pmPrintResult`: the result's address and time, then each value
    /// set with the metric's names and each instance's name (`sptr`: the
    /// metrics whose values are shown as held in static blocks).
    #[doc(alias = "__pmPrintResult")]
    fn dump_result(&self, r: &FetchResult, sptr: &[PmId], out: &mut Vec<u8>) {
        let desc = |p| self.lookup_desc_untraced(p).ok();
        let inst = |indom, inst| self.name_indom_untraced(indom, inst).ok();
        // libpcp shows times in its current zone, which a tool's -z or -Z
        // switches (the trace's, once set)
        let context_zone;
        let trace_zone = self.trace().zone();
        let zone: &dyn LocalTime = match &trace_zone {
            Some(z) => &**z,
            None => {
                context_zone = self.zone();
                &context_zone
            }
        };
        self.dump_result_by(r, sptr, &ResultLookups { desc: &desc, inst: &inst, zone }, out);
    }

    /// `__pmPrintResult` with this context's metric names, and the
    /// descriptors, instance names and zone of `by`: for a tool that
    /// holds an archive's metadata itself (pmdumplog).
    #[doc(hidden)] // tool support
    pub fn dump_result_by(&self, r: &FetchResult, sptr: &[PmId], by: &ResultLookups<'_>, out: &mut Vec<u8>) {
        let zone = by.zone;
        let (h, m, s) = zone.hms(r.timestamp.sec).unwrap_or_default();
        let nsec = r.timestamp.nsec;
        let _ = writeln!(
            out,
            "__pmResult dump from {RESULT_ADDRESS} timestamp: {}.{nsec:09} {h:02}:{m:02}:{s:02}.{nsec:09} numpmid: {}",
            r.timestamp.sec,
            r.sets.len()
        );
        for set in &r.sets {
            self.dump_value_set(set, sptr.contains(&set.pmid), by, out);
        }
    }

    /// One value set as `__pmPrintResult` shows it.
    fn dump_value_set(&self, set: &ValueSet, sptr: bool, by: &ResultLookups<'_>, out: &mut Vec<u8>) {
        let _ = match self.names_of_untraced(set.pmid) {
            Ok(names) => write!(out, "  {} ({}):", set.pmid, names.join(", ")),
            Err(_) => write!(out, "  {} (<noname>):", set.pmid),
        };
        let values = match &set.values {
            Err(e) => {
                let _ = writeln!(out, " {e}");
                return;
            }
            Ok(v) if v.is_empty() => {
                out.extend_from_slice(b" No values returned!\n");
                return;
            }
            Ok(v) => v,
        };
        let desc = (by.desc)(set.pmid);
        let valfmt = if sptr { ValueFormat::Sptr } else { set.valfmt() };
        let _ = writeln!(out, " numval: {} valfmt: {} vlist[]:", values.len(), valfmt as i32);
        for v in values {
            if values.len() > 1 || v.inst != PM_IN_NULL {
                let _ = write!(out, "    inst [{}", v.inst);
                match desc.and_then(|d| (by.inst)(d.indom, v.inst)) {
                    Some(name) => {
                        out.extend_from_slice(b" or \"");
                        out.extend_from_slice(&name);
                        out.extend_from_slice(b"\"] ");
                    }
                    None => out.extend_from_slice(b" or ???] "),
                }
            } else {
                out.extend_from_slice(b"   ");
            }
            out.extend_from_slice(b"value ");
            let ty = match (&desc, &v.value) {
                (Some(d), _) => d.ty,
                (None, pcp_core::Value::Insitu(_)) => MetricType::UNKNOWN,
                (None, pcp_core::Value::Block(b)) => MetricType(i32::from(b.vtype)),
            };
            let _ = pcp_core::format::print_value_in(out, &v.value, ty, 1, by.zone);
            out.push(b'\n');
        }
    }
}

/// What [`Context::dump_result_by`] looks up outside the context: a
/// metric's descriptor, an instance's name (at the time libpcp's context
/// was at), and the zone times are shown in.
#[doc(hidden)] // tool support
pub struct ResultLookups<'a> {
    pub desc: &'a dyn Fn(PmId) -> Option<Desc>,
    pub inst: &'a dyn Fn(InDom, i32) -> Option<Vec<u8>>,
    pub zone: &'a dyn LocalTime,
}

/// libpcp's line for the state changes pmcd announced before a result.
fn state_changes(out: &mut Vec<u8>, changed: i32) {
    out.extend_from_slice(b"PMCD state changes: ");
    let mut any = false;
    if changed & 7 != 0 {
        out.extend_from_slice(b"agent(s)");
        for (bit, word) in AGENT_BITS {
            if changed & bit != 0 {
                out.extend_from_slice(word.as_bytes());
            }
        }
        any = true;
    }
    for (bit, word) in [(PMCD_LABEL_CHANGE, "label change"), (PMCD_NAMES_CHANGE, "names change")] {
        if changed & bit != 0 {
            if any {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(word.as_bytes());
            any = true;
        }
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::state_changes;

    #[test]
    fn state_changes_are_listed_as_libpcp_lists_them() {
        let line = |bits| {
            let mut out = Vec::new();
            state_changes(&mut out, bits);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(line(16), "PMCD state changes: names change\n");
        assert_eq!(line(1 | 4 | 8), "PMCD state changes: agent(s) added dropped, label change\n");
        assert_eq!(line(2 | 16), "PMCD state changes: agent(s) restarted, names change\n");
    }
}
