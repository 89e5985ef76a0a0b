//! Event metrics' values: their records unpacked.

use super::format::hms;
use super::Dumper;
use pcp_core::event::{self, EVENT_FLAGS_PMID, EVENT_MISSED_PMID, FLAG_MISSED};
use pcp_core::format::print_value_in;
use pcp_core::{InDom, PmError, Timestamp, Value, ValueSet};
use std::io::Write;

impl Dumper<'_> {
    /// `%d or "name"` (or `%d or ???`) for an instance at time `when`,
    /// then `close`.
    fn inst_name(&self, buf: &mut Vec<u8>, indom: InDom, inst: i32, when: Timestamp, close: &str) {
        let name = self.src.meta.indom_at(indom, Some(when)).ok().and_then(|set| set.name_of(inst));
        match name {
            Some(n) => {
                let _ = write!(buf, "{inst} or \"");
                buf.extend_from_slice(n);
                let _ = write!(buf, "\"{close}");
            }
            None => {
                let _ = write!(buf, "{inst} or ???{close}");
            }
        }
    }

    /// What `pmNameInDom` of an instance of `indom` at `when` traces:
    /// its look at the context, then its search of the metadata.
    pub(super) fn name_indom_trace(
        &self,
        out: &mut dyn Write,
        buf: &mut Vec<u8>,
        err: &mut dyn Write,
        indom: InDom,
        when: Timestamp,
    ) -> std::io::Result<()> {
        self.which(out, buf, err, 1)?;
        if let Some(trace) = &self.meta_trace {
            self.src.meta.trace_search(indom, Some(when), trace);
            self.flush_trace(out, buf, err)?;
        }
        Ok(())
    }

    /// One value of an event metric: its records unpacked.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn dump_event(
        &mut self,
        out: &mut dyn Write,
        buf: &mut Vec<u8>,
        err: &mut dyn Write,
        (vs, valfmt): (&ValueSet, i32),
        j: usize,
        names: &str,
        indom: InDom,
        highres: bool,
        when: Timestamp,
    ) -> std::io::Result<()> {
        let Ok(values) = &vs.values else { return Ok(()) };
        let iv = &values[j];
        let _ = write!(buf, "    {} ({}", vs.pmid, names);
        if indom.is_null() {
            buf.push(b')');
        } else {
            buf.push(b'[');
            self.name_indom_trace(out, buf, err, indom, when)?;
            self.inst_name(buf, indom, iv.inst, when, "])");
        }
        buf.extend_from_slice(b": ");
        let block = match &iv.value {
            Value::Block(b) if valfmt == 1 || valfmt == 2 => Some(b),
            _ => None,
        };
        if block.map_or(Err(PmError::PM_ERR_CONV), |b| event::check(b, highres)).is_err() {
            // libpcp dumps the array to stderr when its check fails
            let src = event::DumpSource { pmid: vs.pmid, numval: vs.numval(), valfmt, inst: iv.inst, block };
            let names = self.names;
            let mut text = Vec::new();
            event::dump(&mut text, &src, highres, &|p| names.names_of(p).ok());
            self.flush_trace(out, buf, err)?;
            err.write_all(&text)?;
            return Ok(());
        }
        let Some(Ok(records)) = block.map(|b| event::unpack(b, highres)) else { return Ok(()) };
        if self.trace.any() {
            // what libpcp and then pmdumplog look up once (only traced)
            self.anon.unpacked(self.names, &records);
            if !records.is_empty() {
                self.anon.tool_setup(self.names);
            }
            self.flush_trace(out, buf, err)?;
        }
        if records.is_empty() {
            buf.extend_from_slice(b"No event records\n");
            return Ok(());
        }
        let value_of = |set: &ValueSet| match &set.values {
            Ok(v) => match v.first().map(|iv| &iv.value) {
                Some(Value::Insitu(l)) => *l,
                _ => 0,
            },
            Err(_) => 0,
        };
        let mut nmissed: i32 = 0;
        for r in &records {
            if r.sets.len() == 2
                && r.sets[0].pmid == EVENT_FLAGS_PMID
                && value_of(&r.sets[0]) as u32 & FLAG_MISSED != 0
                && r.sets[1].pmid == EVENT_MISSED_PMID
            {
                nmissed = nmissed.wrapping_add(value_of(&r.sets[1]));
            }
        }
        let nrecords = records.len() as i32;
        let _ = write!(buf, "{nrecords}");
        if nmissed > 0 {
            let _ = write!(buf, " (and {nmissed} missed)");
        }
        buf.extend_from_slice(if nrecords.wrapping_add(nmissed) == 1 {
            b" event record\n"
        } else {
            b" event records\n"
        });
        for (i, r) in records.iter().enumerate() {
            let _ = write!(buf, "        --- event record [{i}] timestamp ");
            if highres {
                let _ = write!(buf, "{}.{:09}", hms(&self.zone, r.sec), r.frac as i32);
            } else {
                self.timeval(buf, r.sec, r.frac);
            }
            if r.numpmid == 0 {
                buf.extend_from_slice(b" ---\n\t          No parameters\n");
                continue;
            }
            if r.numpmid < 0 {
                let _ = writeln!(buf, " ---\n\t          Error: illegal number of parameters ({})", r.numpmid);
                continue;
            }
            let mut flags: u32 = 0;
            for (p, set) in r.sets.iter().enumerate() {
                self.dump_parameter(out, buf, err, set, p, &mut flags)?;
            }
        }
        Ok(())
    }

    /// One parameter of an event record (`event.flags` and `event.missed`
    /// in their own forms).
    fn dump_parameter(
        &mut self,
        out: &mut dyn Write,
        buf: &mut Vec<u8>,
        err: &mut dyn Write,
        set: &ValueSet,
        index: usize,
        flags: &mut u32,
    ) -> std::io::Result<()> {
        let lval = match &set.values {
            Ok(v) => match v.first().map(|iv| &iv.value) {
                Some(Value::Insitu(l)) => *l,
                _ => 0,
            },
            Err(_) => 0,
        };
        // (pmNameAll)
        let m = self.metric(set.pmid);
        self.flush_trace(out, buf, err)?;
        match &m.names {
            Some(names) => {
                if index == 0 {
                    if set.pmid == EVENT_FLAGS_PMID {
                        *flags = lval as u32;
                        let _ = writeln!(buf, " flags 0x{:x} ({}) ---", *flags, event::flags_str(*flags));
                        return Ok(());
                    }
                    buf.extend_from_slice(b" ---\n");
                }
                if *flags & FLAG_MISSED != 0 && index == 1 && set.pmid == EVENT_MISSED_PMID {
                    let _ = writeln!(buf, "        ==> {lval} missed event records");
                    return Ok(());
                }
                let _ = write!(buf, "        {} ({}):", set.pmid, names);
            }
            None => {
                let _ = write!(buf, "        PMID: {}:", set.pmid);
            }
        }
        // (pmLookupDesc)
        self.which(out, buf, err, 1)?;
        let Some(desc) = m.desc else {
            let e = self.src.desc(set.pmid).err().unwrap_or(PmError::PM_ERR_PMID_LOG);
            let _ = writeln!(buf, " pmLookupDesc: {e}");
            return Ok(());
        };
        buf.extend_from_slice(b" value ");
        if let Ok(v) = &set.values {
            if let Some(iv) = v.first() {
                let _ = print_value_in(buf, &iv.value, desc.ty, 1, &self.zone);
            }
        }
        buf.push(b'\n');
        Ok(())
    }
}
