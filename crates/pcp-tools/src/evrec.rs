//! Event records as pminfo (`-x`) and pmval unpack them from a fetched
//! value: libpcp's unpacking, with the diagnostic dump it writes to
//! standard error when an array fails its check, and the timestamps
//! `pmPrintStamp` and `pmPrintHighResStamp` print.

use pcp_core::event::{self, EventRecord};
use pcp_core::{InstValue, LocalTime, PmError, PmId, Value};
use std::io::Write;

/// `PM_VAL_SPTR`: how a fetch from an archive holds a value block.
pub(crate) const VAL_SPTR: i32 = 2;

/// `pmPrintStamp` (`HH:MM:SS.mmm`, from microseconds) or
/// `pmPrintHighResStamp` (`HH:MM:SS.nnnnnnnnn`) of an event record's
/// time, in `zone`.
#[doc(alias = "pmPrintStamp")]
#[doc(alias = "pmPrintHighResStamp")]
pub(crate) fn stamp(out: &mut Vec<u8>, zone: &dyn LocalTime, sec: i64, frac: i64, highres: bool) {
    let hms = match zone.hms(sec) {
        Some((h, m, s)) => format!("{h:02}:{m:02}:{s:02}"),
        None => "??:??:??".to_string(),
    };
    if highres {
        let _ = write!(out, "{hms}.{:09}", frac as i32);
    } else {
        let _ = write!(out, "{hms}.{:03}", (frac / 1000) as i32);
    }
}

/// The value set one event value came from: what libpcp's dump of a bad
/// array shows.
pub(crate) struct Source {
    /// The metric.
    pub pmid: PmId,
    /// The set's `numval`.
    pub numval: i32,
    /// The set's `valfmt`.
    pub valfmt: i32,
}

/// `pmUnpackEventRecords` / `pmUnpackHighResEventRecords` of one value:
/// the records, or the error with what libpcp wrote to standard error
/// (its dump of an array that fails the check; nothing for a parameter of
/// a type that cannot be unpacked). `names` gives `pmNameAll` for the
/// dump.
#[doc(alias = "pmUnpackEventRecords")]
#[doc(alias = "pmUnpackHighResEventRecords")]
pub(crate) fn unpack(
    src: &Source,
    iv: &InstValue,
    highres: bool,
    names: &dyn Fn(PmId) -> Option<Vec<String>>,
) -> Result<Vec<EventRecord>, (PmError, Vec<u8>)> {
    let block = match &iv.value {
        Value::Block(b) if src.valfmt != 0 => Some(b),
        _ => None,
    };
    let checked = match block {
        Some(b) => event::check(b, highres),
        None => Err(PmError::PM_ERR_CONV),
    };
    if let Err(e) = checked {
        let dump = event::DumpSource { pmid: src.pmid, numval: src.numval, valfmt: src.valfmt, inst: iv.inst, block };
        let mut text = Vec::new();
        event::dump(&mut text, &dump, highres, names);
        return Err((e, text));
    }
    match block.map(|b| event::unpack(b, highres)) {
        Some(Ok(records)) => Ok(records),
        Some(Err(e)) => Err((e, Vec::new())),
        None => Err((PmError::PM_ERR_CONV, Vec::new())),
    }
}

/// The 32-bit value of a parameter's value set (`vlist[0].value.lval`),
/// as `event.flags` and `event.missed` carry theirs.
pub(crate) fn lval(set: &pcp_core::ValueSet) -> i32 {
    match set.values.as_deref() {
        Ok([InstValue { value: Value::Insitu(l), .. }, ..]) => *l,
        _ => 0,
    }
}

/// The look-ups of the anonymous metrics `event.flags` and `event.missed`
/// that libpcp and the tools make once a process: libpcp's when it first
/// unpacks a record with flags (`event.flags`) and one with missed
/// records (`event.missed`), and the tool's own pair after its first
/// unpacking (`setup_event_derived_metrics`). Their PMIDs are fixed, so
/// they are made only for what they trace (`-Dcontext`, `-Dpmns`,
/// `-Dderive`, `-Dpdu`).
#[derive(Default)]
pub(crate) struct AnonLookups {
    flags: bool,
    missed: bool,
    tool: bool,
}

impl AnonLookups {
    /// libpcp's look-ups while it unpacked `records`.
    #[doc(alias = "pmUnpackEventRecords")]
    pub(crate) fn unpacked(&mut self, ctx: &pcp::Context, records: &[EventRecord]) {
        for r in records {
            let Some(flags) = r.sets.first().filter(|s| s.pmid == event::EVENT_FLAGS_PMID).map(lval) else {
                continue;
            };
            if !self.flags {
                self.flags = true;
                let _ = ctx.lookup_names(&["event.flags"]);
            }
            if flags as u32 & event::FLAG_MISSED != 0 && !self.missed {
                self.missed = true;
                let _ = ctx.lookup_names(&["event.missed"]);
            }
        }
    }

    /// The tool's look-ups of both PMIDs, the first time only.
    pub(crate) fn tool_setup(&mut self, ctx: &pcp::Context) {
        if !self.tool {
            self.tool = true;
            let _ = ctx.lookup_names(&["event.flags"]);
            let _ = ctx.lookup_names(&["event.missed"]);
        }
    }
}
