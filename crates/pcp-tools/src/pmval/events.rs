//! pmval's report of event records (`printevents`).

use super::report::Report;
use crate::evrec;
use pcp::Context;
use pcp_core::{Desc, InstValue, MetricType, PmError, PmId, Timestamp, Value, ValueSet, PM_IN_NULL};
use std::collections::HashMap;
use std::io::Write;

/// pmval's caches for event records (it looks each thing up once).
#[derive(Default)]
pub(super) struct Lookups {
    /// Instance names, by identifier, when every instance is reported.
    inames: HashMap<i32, Vec<u8>>,
    /// Each parameter's name and descriptor (none for the anonymous
    /// metrics, whose descriptors pmval does not ask for).
    params: HashMap<PmId, (String, Option<Desc>)>,
    anon: evrec::AnonLookups,
}

impl Report {
    /// The time, then pmval's `printevents`: each value's event records,
    /// under the metric's name (and instance's, for an instance pmval
    /// knows; others are passed over). `Err` is the exit status.
    pub(super) fn print_events(
        &mut self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        t: Timestamp,
        vs: &ValueSet,
    ) -> std::io::Result<Result<(), i32>> {
        if self.stamps {
            self.timestamp(out, t)?;
            out.write_all(b"  ")?;
        }
        let values: &[InstValue] = vs.values.as_deref().unwrap_or(&[]);
        let highres = self.desc.ty != MetricType::EVENT;
        for v in values {
            if v.inst == PM_IN_NULL {
                write!(out, "{}:", self.metric)?;
            } else {
                let name = if !self.iorder.is_empty() {
                    self.iorder.iter().find(|p| p.id == v.inst).map(|p| p.name.clone())
                } else if let Some(n) = self.events.inames.get(&v.inst) {
                    Some(n.clone())
                } else {
                    let names = if self.archive {
                        ctx.get_indom_archive(self.desc.indom).and_then(|(ids, names)| {
                            ids.iter()
                                .position(|&i| i == v.inst)
                                .map(|k| names[k].clone())
                                .ok_or(PmError::PM_ERR_INST_LOG)
                        })
                    } else {
                        ctx.name_indom(self.desc.indom, v.inst)
                    };
                    err.write_all(&ctx.take_messages())?;
                    match names {
                        Ok(n) => {
                            self.events.inames.insert(v.inst, n.clone());
                            Some(n)
                        }
                        Err(e) => {
                            writeln!(err, "pmval: pmNameInDom: {}[{}]: {e}", self.metric, v.inst as u32)?;
                            return Ok(Err(1));
                        }
                    }
                };
                let Some(name) = name else { continue };
                write!(out, "{}[", self.metric)?;
                out.write_all(&name)?;
                out.write_all(b"]:")?;
            }
            self.event_dump(ctx, out, err, vs, v, evrec::VAL_SPTR, highres)?;
        }
        Ok(Ok(()))
    }

    /// pmval's `myeventdump`: the records of one event value.
    #[allow(clippy::too_many_arguments)]
    fn event_dump(
        &mut self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        vs: &ValueSet,
        iv: &InstValue,
        block_fmt: i32,
        highres: bool,
    ) -> std::io::Result<()> {
        let valfmt = if matches!(iv.value, Value::Block(_)) { block_fmt } else { 0 };
        let src = evrec::Source { pmid: vs.pmid, numval: vs.numval(), valfmt };
        let records = match evrec::unpack(&src, iv, highres, &|p| ctx.names_of(p).ok()) {
            Ok(r) => r,
            Err((e, dump)) => {
                err.write_all(&dump)?;
                return writeln!(out, " pmUnpackEventRecords: {e}");
            }
        };
        // (libpcp's look-ups while it unpacked, then pmval's own)
        self.events.anon.unpacked(ctx, &records);
        err.write_all(&ctx.take_messages())?;
        writeln!(out, " {} event records", records.len())?;
        self.events.anon.tool_setup(ctx);
        err.write_all(&ctx.take_messages())?;
        for (r, rec) in records.iter().enumerate() {
            let mut text = b"  ".to_vec();
            evrec::stamp(&mut text, &self.zone, rec.sec, rec.frac, highres);
            out.write_all(&text)?;
            write!(out, " --- event record [{r}]")?;
            if rec.numpmid == 0 {
                out.write_all(b" ---\n    ==> No parameters\n")?;
                continue;
            }
            if rec.numpmid < 0 {
                writeln!(out, " ---\n\tError: illegal number of parameters ({})", rec.numpmid)?;
                continue;
            }
            let mut flags = 0u32;
            for (p, set) in rec.sets.iter().enumerate() {
                self.event_parameter(ctx, out, err, set, p, &mut flags)?;
            }
        }
        Ok(())
    }

    /// pmval's `myvaluesetdump`: one parameter of an event record.
    fn event_parameter(
        &mut self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        set: &ValueSet,
        index: usize,
        flags: &mut u32,
    ) -> std::io::Result<()> {
        use pcp_core::event::{flags_str, EVENT_FLAGS_PMID, EVENT_MISSED_PMID, FLAG_MISSED};
        let (name, desc) = match self.events.params.get(&set.pmid) {
            Some(p) => p.clone(),
            None => {
                let name = ctx.name_of(set.pmid);
                err.write_all(&ctx.take_messages())?;
                let name = match name {
                    Ok(n) => n,
                    Err(e) => return writeln!(out, "\t{}: pmNameID: {e}", set.pmid),
                };
                let desc = if set.pmid == EVENT_FLAGS_PMID || set.pmid == EVENT_MISSED_PMID {
                    None
                } else {
                    let desc = ctx.lookup_desc(set.pmid);
                    err.write_all(&ctx.take_messages())?;
                    match desc {
                        Ok(d) => Some(d),
                        Err(e) => return writeln!(out, "\t{name}: pmLookupDesc: {e}"),
                    }
                };
                self.events.params.insert(set.pmid, (name.clone(), desc));
                (name, desc)
            }
        };
        if index == 0 {
            if set.pmid == EVENT_FLAGS_PMID {
                *flags = evrec::lval(set) as u32;
                return writeln!(out, " flags 0x{:x} ({}) ---", *flags, flags_str(*flags));
            }
            out.write_all(b" ---\n")?;
        }
        if *flags & FLAG_MISSED != 0 && index == 1 && set.pmid == EVENT_MISSED_PMID {
            return writeln!(out, "    ==> {} missed event records", evrec::lval(set));
        }
        match desc {
            Some(d) => self.param_dump(ctx, out, err, &name, &d, set),
            // pmval looks no descriptor up for the anonymous metrics
            None => Ok(()),
        }
    }

    /// pmval's `mydump` of an event parameter's values.
    fn param_dump(
        &mut self,
        ctx: &Context,
        out: &mut dyn Write,
        err: &mut dyn Write,
        name: &str,
        d: &Desc,
        vs: &ValueSet,
    ) -> std::io::Result<()> {
        let values = match &vs.values {
            Ok(v) if v.is_empty() => {
                if self.verbose {
                    writeln!(out, "{name}: No value(s) available!")?;
                }
                return Ok(());
            }
            Err(e) => return writeln!(out, "{name}: Error: {e}"),
            Ok(v) => v,
        };
        write!(out, "    {name}")?;
        for v in values {
            if !d.indom.is_null() {
                if values.len() > 1 {
                    out.write_all(b"\n        ")?;
                }
                let found = ctx
                    .get_indom_archive(d.indom)
                    .ok()
                    .and_then(|(ids, names)| ids.iter().position(|&i| i == v.inst).map(|k| names[k].clone()));
                match found {
                    Some(n) => {
                        out.write_all(b"[\"")?;
                        out.write_all(&n)?;
                        out.write_all(b"\"]")?;
                    }
                    None => write!(out, "[{}]", v.inst)?,
                }
            }
            out.write_all(b" ")?;
            match d.ty {
                MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC => {
                    out.write_all(b"[")?;
                    if let Value::Block(b) = &v.value {
                        for byte in &b.data {
                            write!(out, "{byte:02x}")?;
                        }
                    }
                    out.write_all(b"]\n")?;
                }
                // an event parameter of an event type: libpcp refuses to unpack it
                MetricType::EVENT | MetricType::HIGHRES_EVENT => {
                    self.event_dump(ctx, out, err, vs, v, 1, d.ty != MetricType::EVENT)?
                }
                _ => {
                    let mut text = Vec::new();
                    let _ = pcp_core::format::print_value_in(&mut text, &v.value, d.ty, 1, &self.zone);
                    out.write_all(&text)?;
                    out.write_all(b"\n")?;
                }
            }
        }
        Ok(())
    }
}
