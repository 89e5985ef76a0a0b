//! What pmval prints of the values it fetches, and how: the instances
//! it reports, their labels, values and rates, time stamps.

use super::{Command, Stop};
use crate::options::ContextKind;
use pcp::timezone::Zone;
use pcp::Context;
use pcp_core::format::pad_left;
use pcp_core::support::cfmt::{push_f64, push_f64_text, FloatSpec};
use pcp_core::value::extract_value;
use pcp_core::{
    Desc, FetchResult, InDom, InstValue, MetricType, PmError, PmId, Semantics, Timestamp, ValueSet, PM_IN_NULL,
};
use std::io::Write;

/// An instance: identifier and name.
#[derive(Clone, Debug)]
pub(super) struct InstPair {
    pub(super) id: i32,
    pub(super) name: Vec<u8>,
}

/// What pmval prints, and how.
pub(super) struct Report {
    /// The metric's name as given.
    pub(super) metric: String,
    pub(super) desc: Desc,
    /// Every instance (no `-i`).
    pub(super) iall: bool,
    /// The instance names asked for with `-i`.
    pub(super) inames: Vec<Vec<u8>>,
    /// The instances reported, by identifier.
    pub(super) ipairs: Vec<InstPair>,
    /// The same in the order they were found (pmval's `iids` and
    /// `inames`), where event records look their instances up.
    pub(super) iorder: Vec<InstPair>,
    /// An event metric: records are unpacked (pmval's `rawEvents`).
    pub(super) raw_events: bool,
    /// `-v`.
    pub(super) verbose: bool,
    /// Seconds per the counter's time unit (rates come out per second).
    pub(super) scale: f64,
    pub(super) cols: i32,
    pub(super) fixed: i32,
    pub(super) raw_counter: bool,
    pub(super) xflag: u32,
    pub(super) zone: Zone,
    /// pmval's label style, decided once: 0 normal, 1 wide, 2 too wide.
    pub(super) style: Option<u8>,
    pub(super) wrap: bool,
    /// An archive context: values are stamped with their times.
    pub(super) stamps: bool,
    /// pmval's `archive`: instances are looked up as in an archive (a
    /// source named with `-a`, even when `-L` makes the context local).
    pub(super) archive: bool,
    /// Room for a line of values and for one value's text, kept from one
    /// sample to the next.
    pub(super) line: Vec<u8>,
    pub(super) text: String,
    /// The result each fetch fills, holding the room of a value set done
    /// with ([`Report::recycle`]).
    pub(super) fetched: FetchResult,
    /// What event records' reports looked up once: instance names (all
    /// instances reported), each parameter's name and descriptor, and
    /// `event.flags` and `event.missed`.
    pub(super) events: super::events::Lookups,
}

impl Report {
    /// pmval's `initapi`: look the metric up, then set up how it is
    /// reported (its instances, its rate scale), storing the `-x` filter
    /// in pmcd if there is one.
    pub(super) fn set_up(
        cmd: &Command,
        ctx: &mut Context,
        zone: Zone,
        env: &[(Vec<u8>, Vec<u8>)],
        err: &mut dyn Write,
    ) -> Result<(PmId, Report), Stop> {
        let metric = &cmd.metric;
        let own = &cmd.own;
        // (pmval notes the current context first)
        ctx.trace_which(1);
        let looked_up = ctx.lookup_names(&[metric.as_str()]).map_err(PmError::from);
        // (what the lookup traced)
        err.write_all(&ctx.take_messages())?;
        let pmid = match looked_up {
            Ok((ids, _)) => ids[0],
            Err(e) => {
                writeln!(err, "pmval: pmLookupName({metric}): {e}")?;
                return Err(Stop::Exit(1));
            }
        };
        let looked_up = ctx.lookup_desc(pmid);
        err.write_all(&ctx.take_messages())?;
        let desc = match looked_up {
            Ok(d) => d,
            Err(e) => {
                writeln!(err, "pmval: pmLookupDesc: {e}")?;
                return Err(Stop::Exit(1));
            }
        };
        if desc.indom.is_null() && cmd.spec_ninst > 0 {
            writeln!(err, "pmval: {metric}: singular metrics do not have instances")?;
            return Err(Stop::Exit(1));
        }
        let raw_events = matches!(desc.ty, MetricType::EVENT | MetricType::HIGHRES_EVENT);
        let mut scale = 1.0;
        if desc.sem == Semantics::COUNTER && desc.units.dim_time() != 0 {
            let st = desc.units.scale_time() as i32;
            // PM_TIME_SEC is 3
            scale = if st > 3 { 60f64.powi(3 - st) } else { 1000f64.powi(3 - st) };
            // pmval keeps the scale in a float
            scale = scale as f32 as f64;
        }
        let is_archive = cmd.opts.context == Some(ContextKind::Archive);
        let mut rep = Report {
            metric: metric.clone(),
            desc,
            iall: own.iall,
            inames: own.inames.clone(),
            ipairs: Vec::new(),
            iorder: Vec::new(),
            raw_events,
            verbose: own.verbose,
            scale,
            cols: own.cols,
            fixed: own.fixed,
            raw_counter: own.raw_counter,
            xflag: own.xflag,
            zone,
            style: None,
            wrap: env.iter().any(|(k, _)| k == b"PCP_COUNTER_WRAP"),
            stamps: is_archive,
            archive: cmd.archive_insts,
            line: Vec::new(),
            text: String::new(),
            fetched: FetchResult::default(),
            events: Default::default(),
        };
        rep.init_insts(ctx, err)?.map_err(Stop::Exit)?;
        if let (Some(text), Some(_)) = (&own.filter, ctx.host_source()) {
            rep.store_filter(ctx, pmid, text, err)?.map_err(Stop::Exit)?;
        }
        Ok((pmid, rep))
    }
}

/// A `?` right-aligned in `cols` columns: no value.
fn unknown(line: &mut Vec<u8>, cols: usize) {
    line.resize(line.len() + cols.saturating_sub(1), b' ');
    line.push(b'?');
}

/// The first entry of instance `id` in `list`, sorted by instance (`inst`
/// gives an entry's), looked for from `*at` on, where the search for the
/// next, greater or equal, `id` goes on from. pmval's values (sorted by
/// `getvals`, the first in the order fetched) and its reported instances
/// (sorted when they are set) are walked together this way.
fn seek<'l, T>(list: &'l [T], at: &mut usize, id: i32, inst: impl Fn(&T) -> i32) -> Option<&'l T> {
    while list.get(*at).is_some_and(|e| inst(e) < id) {
        *at += 1;
    }
    list.get(*at).filter(|e| inst(e) == id)
}

/// [`seek`] in a list of values.
fn value_of<'v>(values: &'v [InstValue], at: &mut usize, id: i32) -> Option<&'v InstValue> {
    seek(values, at, id, |v| v.inst)
}

/// What one fetch gave pmval.
pub(super) enum Got {
    /// Values (sorted by instance).
    Values(Timestamp, ValueSet),
    /// No values (already reported).
    Nothing,
    /// A mark record: logging was suspended (already reported).
    Suspended,
    /// Past the end of the time window.
    PastEnd,
    /// pmval ends with this status.
    Exit(i32),
}

/// printreal's conversion for `v` (not zero and not negative where that
/// prints '!'), from "%*.0f.0   " to "%*.0f.    ", its width given as a
/// `*` argument (negative: left-justified, as in C), and the text after it.
// a NaN fails every comparison and falls to the last format, as in C: a
// range test would change that
#[allow(clippy::manual_range_contains)]
fn printreal_spec(v: f64, minwidth: i32) -> (FloatSpec, &'static str) {
    let (conv, precision, w, tail) = if v == 0.0 {
        (b'f', 0, minwidth - 5, ".0   ")
    } else if v < 0.1 || v > 9999.0 {
        (b'E', 3, minwidth, "")
    } else if v <= 0.9999 {
        (b'f', 4, minwidth, "")
    } else if v <= 9.999 {
        (b'f', 3, minwidth - 1, " ")
    } else if v <= 99.99 {
        (b'f', 2, minwidth - 2, "  ")
    } else if v <= 999.9 {
        (b'f', 1, minwidth - 3, "   ")
    } else {
        (b'f', 0, minwidth - 5, ".    ")
    };
    let spec = FloatSpec {
        conv,
        left: w < 0,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: w.unsigned_abs() as usize,
        precision: Some(precision),
    };
    (spec, tail)
}

/// printreal's conversion of `v` appended to `text`, but for the spaces
/// a right-justified number has before it: how wide the text is to be
/// with them. (Padding in place would move the digits; the caller puts
/// the spaces first, [`pad_left`].)
fn printreal_unpadded(text: &mut String, v: f64, minwidth: i32) -> usize {
    let (mut spec, tail) = printreal_spec(v, minwidth);
    let width = if spec.left { 0 } else { std::mem::take(&mut spec.width) };
    push_f64(text, &spec, v);
    text.push_str(tail);
    // (the text after the number counts too: the padding comes before it)
    width + tail.len()
}

impl Report {
    /// printhdr's semantics and units lines.
    pub(super) fn print_units(&self, out: &mut dyn Write) -> std::io::Result<()> {
        write!(out, "semantics: ")?;
        match self.desc.sem {
            Semantics::COUNTER => {
                write!(out, "cumulative counter")?;
                if !self.raw_counter {
                    write!(out, " (converting to rate)")?;
                }
            }
            Semantics::INSTANT => write!(out, "instantaneous value")?,
            Semantics::DISCRETE => write!(out, "discrete instantaneous value")?,
            _ => write!(out, "unknown")?,
        }
        writeln!(out)?;
        write!(out, "units:     {}", self.desc.units.describe())?;
        if !self.raw_counter && self.desc.sem == Semantics::COUNTER {
            write!(out, " (converting to ")?;
            let u = self.desc.units;
            let st = if u.dim_time() == 0 { 3 } else { u.scale_time() };
            let per_time = pcp_core::Units::new(
                u.dim_space(),
                u.dim_time() - 1,
                u.dim_count(),
                u.scale_space(),
                st,
                u.scale_count(),
            );
            match per_time {
                Ok(p) if p.dim_space() == 0 && p.dim_time() == 0 && p.dim_count() == 0 => {
                    write!(out, "time utilization)")?
                }
                Ok(p) => write!(out, "{})", p.describe())?,
                Err(_) => write!(out, "none)")?,
            }
        }
        writeln!(out)?;
        Ok(())
    }

    /// pmval's `initinsts`: the instances to report, sorted by identifier.
    pub(super) fn init_insts(&mut self, ctx: &mut Context, err: &mut dyn Write) -> std::io::Result<Result<(), i32>> {
        if self.desc.indom.is_null() {
            self.ipairs.clear();
            self.iorder.clear();
            return Ok(Ok(()));
        }
        let indom: InDom = self.desc.indom;
        let mut pairs = Vec::new();
        if !self.iall {
            let mut ids = Vec::new();
            for n in &self.inames {
                let found = if self.archive { ctx.lookup_indom_archive(indom, n) } else { ctx.lookup_indom(indom, n) };
                match found {
                    Ok(id) => {
                        ids.push(id);
                        pairs.push(InstPair { id, name: n.clone() });
                    }
                    Err(_) => {
                        writeln!(err, "pmval: instance {} not available", String::from_utf8_lossy(n))?;
                        return Ok(Err(1));
                    }
                }
            }
            if let Err(e) = ctx.add_profile(indom, &ids) {
                writeln!(err, "pmval: pmAddProfile: {e}")?;
                return Ok(Err(1));
            }
        } else {
            let all = if self.archive { ctx.get_indom_archive(indom) } else { ctx.get_indom(indom) };
            match all {
                Ok((ids, names)) => {
                    pairs = ids.into_iter().zip(names).map(|(id, name)| InstPair { id, name }).collect();
                }
                Err(e) => {
                    writeln!(err, "pmval: pmGetInDom({indom}): {e}")?;
                    return Ok(Err(1));
                }
            }
        }
        self.iorder.clone_from(&pairs);
        // (sorted: values are looked up in instance order)
        pairs.sort_by_key(|p| p.id);
        self.ipairs = pairs;
        Ok(Ok(()))
    }

    /// Whether instance `id` is one reported ([`seek`] from `*at`).
    fn known(&self, at: &mut usize, id: i32) -> bool {
        seek(&self.ipairs, at, id, |p| p.id).is_some()
    }

    /// pmval's `initfilters` (`-x`, host contexts only): store `text` to
    /// the metric in pmcd before the first fetch, for each instance
    /// pmval reports (the one null instance of a singular metric), as a
    /// string for an event metric (a filter its PMDA may take), else as
    /// the metric's own type, read as pmstore reads values.
    fn store_filter(
        &self,
        ctx: &mut Context,
        pmid: PmId,
        text: &[u8],
        err: &mut dyn Write,
    ) -> std::io::Result<Result<(), i32>> {
        let ty = if self.raw_events { MetricType::STRING } else { self.desc.ty };
        // pmval's messages quote the filter as given, bytes and all
        let say = |err: &mut dyn Write, head: &str, tail: &str| -> std::io::Result<()> {
            err.write_all(head.as_bytes())?;
            err.write_all(text)?;
            err.write_all(tail.as_bytes())
        };
        let mut insts: Vec<i32> = self.iorder.iter().map(|p| p.id).collect();
        if insts.is_empty() {
            insts.push(PM_IN_NULL);
        }
        let mut values = Vec::with_capacity(insts.len());
        for inst in insts {
            match crate::pmstore::stuff_value(text, ty, inst) {
                Ok(v) => values.push(v),
                Err(crate::pmstore::ValueError::Type) => {
                    let tail = format!("\" incompatible with metric type (PM_TYPE_{})\n", ty.name());
                    say(err, "pmval: filter \"", &tail)?;
                    return Ok(Err(1));
                }
                Err(crate::pmstore::ValueError::Range) => {
                    let tail = format!("\" is out of range for metric data type (PM_TYPE_{})\n", ty.name());
                    say(err, "pmval: filter value \"", &tail)?;
                    return Ok(Err(1));
                }
            }
        }
        let request =
            FetchResult { timestamp: Timestamp::default(), sets: vec![ValueSet { pmid, values: Ok(values) }] };
        if let Err(e) = ctx.store(&request) {
            say(err, "pmval: store value \"", &format!("\" failed: {e}\n"))?;
            return Ok(Err(1));
        }
        Ok(Ok(()))
    }

    /// pmval's `chkinsts`.
    pub(super) fn has_all_insts(&self, vs: &ValueSet) -> bool {
        if self.desc.indom.is_null() {
            return true;
        }
        let Ok(values) = &vs.values else { return true };
        let mut at = 0;
        values.iter().all(|v| self.known(&mut at, v.inst))
    }

    /// pmval's `getvals`.
    pub(super) fn getvals(
        &mut self,
        ctx: &mut Context,
        pmid: PmId,
        uninterp: bool,
        finish: Option<Timestamp>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> std::io::Result<Got> {
        let fetched: Result<(), PmError> = if uninterp {
            loop {
                let fetched = ctx.fetch_archive();
                err.write_all(&ctx.take_messages())?;
                match fetched {
                    Err(e) => break Err(e),
                    Ok(r) if r.sets.is_empty() => {
                        self.timestamp(out, r.timestamp)?;
                        writeln!(out, "  Archive logging suspended")?;
                        return Ok(Got::Suspended);
                    }
                    Ok(r) => {
                        if let Some(i) = r.sets.iter().position(|s| s.pmid == pmid) {
                            let mut r = r;
                            let set = r.sets.swap_remove(i);
                            self.fetched = FetchResult { timestamp: r.timestamp, sets: vec![set] };
                            break Ok(());
                        }
                    }
                }
            }
        } else {
            let fetched = ctx.fetch_into(&[pmid], &mut self.fetched);
            err.write_all(&ctx.take_messages())?;
            fetched
        };
        // (what the fetch traced, before the values are reported)
        err.write_all(&ctx.take_messages())?;
        match fetched {
            Ok(()) => {}
            Err(PmError::PM_ERR_EOL) => return Ok(Got::Exit(0)),
            Err(e) => {
                let what = if uninterp { "pmFetchArchive" } else { "pmFetch" };
                writeln!(err, "\npmval: {what}: {e}")?;
                return Ok(Got::Exit(1));
            }
        }
        let timestamp = self.fetched.timestamp;
        if finish.is_some_and(|f| timestamp.as_secs_f64() > f.as_secs_f64()) {
            return Ok(Got::PastEnd);
        }
        // (the set is taken out, the list that held it kept)
        let Some(mut vs) = self.fetched.sets.drain(..).next() else { return Ok(Got::Nothing) };
        match &mut vs.values {
            Ok(v) if v.is_empty() => {
                if self.stamps {
                    self.timestamp(out, timestamp)?;
                    out.write_all(b"  ")?;
                }
                if !self.raw_events {
                    writeln!(out, "No values available")?;
                } else if self.verbose {
                    writeln!(out, "{}: No values available", self.metric)?;
                }
                Ok(Got::Nothing)
            }
            Err(PmError::PM_ERR_NOTCONN) if self.raw_events => Ok(Got::Exit(0)),
            Err(e) => {
                let what = if uninterp { "pmFetchArchive" } else { "pmFetch" };
                writeln!(err, "\npmval: {what}: {e}")?;
                Ok(Got::Nothing)
            }
            Ok(v) => {
                v.sort_by_key(|iv| iv.inst);
                Ok(Got::Values(timestamp, vs))
            }
        }
    }

    /// Hand back a value set done with: the next fetch fills its list.
    pub(super) fn recycle(&mut self, vs: ValueSet) {
        if self.fetched.sets.is_empty() {
            self.fetched.sets.push(vs);
        }
    }

    /// "No values available", after the time in an archive.
    pub(super) fn no_values(&self, out: &mut dyn Write, t: Timestamp) -> std::io::Result<()> {
        if self.stamps {
            self.timestamp(out, t)?;
            out.write_all(b"  ")?;
        }
        writeln!(out, "No values available")
    }

    /// pmval's `mytimestamp`, for archives (live values go unstamped).
    pub(super) fn timestamp(&self, out: &mut dyn Write, t: Timestamp) -> std::io::Result<()> {
        if !self.stamps {
            return Ok(());
        }
        if self.xflag == 0 {
            let Some((hour, min, sec)) = pcp_core::LocalTime::hms(&self.zone, t.sec) else { return Ok(()) };
            let ms = i64::from(t.nsec / 1_000_000);
            // (the common case, each sample's, without the formatting machinery)
            let digit = |v: i64| b'0' + v.rem_euclid(10) as u8;
            let two = |v: u32| [digit(i64::from(v) / 10), digit(v.into())];
            if sec < 60 && (0..1000).contains(&ms) {
                let ([h1, h2], [m1, m2], [s1, s2]) = (two(hour), two(min), two(sec));
                return out.write_all(&[
                    h1,
                    h2,
                    b':',
                    m1,
                    m2,
                    b':',
                    s1,
                    s2,
                    b'.',
                    digit(ms / 100),
                    digit(ms / 10),
                    digit(ms),
                ]);
            }
            return write!(out, "{hour:02}:{min:02}:{sec:02}.{ms:03}");
        }
        let Ok(tm) = self.zone.local_clock(t.sec) else { return Ok(()) };
        let ctime = self.zone.ctime(t.sec).unwrap_or_default();
        let ddmm = ctime.get(..10).unwrap_or("");
        let yr = ctime.get(20..24).unwrap_or("");
        if self.xflag == 1 {
            write!(out, "{ddmm} {:02}:{:02}:{:02}.{:06} {yr:>4}", tm.hour, tm.min, tm.sec, t.nsec / 1000)
        } else {
            write!(out, "{ddmm} {:02}:{:02}:{:02}.{:09} {yr:>4}", tm.hour, tm.min, tm.sec, t.nsec)
        }
    }

    /// pmval's `printlabels`.
    pub(super) fn print_labels(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let cols = self.cols.max(0) as usize;
        let style = match self.style {
            Some(s) => s,
            None => {
                let mut s = 0;
                for p in &self.ipairs {
                    if p.name.len() > cols {
                        s = 2;
                        break;
                    }
                    if p.name.len() + 3 > cols {
                        s = 1;
                    }
                }
                if s == 2 {
                    for (i, p) in self.ipairs.iter().enumerate() {
                        write!(out, "full label for instance[{i}]: ")?;
                        out.write_all(&p.name)?;
                        writeln!(out)?;
                    }
                }
                self.style = Some(s);
                s
            }
        };
        writeln!(out)?;
        for (i, p) in self.ipairs.iter().enumerate() {
            if i == 0 && self.stamps {
                // room for the time column
                let lead = match self.xflag {
                    0 => 12,
                    1 => 31,
                    _ => 34,
                };
                write!(out, "{:lead$}", "")?;
            }
            let shift = !(self.raw_counter || self.desc.sem != Semantics::COUNTER || style != 0) && self.fixed == -1;
            if shift {
                let w = cols.saturating_sub(3);
                let name = &p.name[..p.name.len().min(w)];
                write!(out, "{:w$}", "", w = w - name.len())?;
                out.write_all(name)?;
                write!(out, "    ")?;
            } else {
                let name = &p.name[..p.name.len().min(cols)];
                write!(out, "{:w$}", "", w = cols - name.len())?;
                out.write_all(name)?;
                write!(out, " ")?;
            }
        }
        if !self.ipairs.is_empty() {
            writeln!(out)?;
        }
        Ok(())
    }

    /// pmval's `printreal`, made in `text` but for the spaces a
    /// right-justified number has before it: how wide it is to be with
    /// them.
    fn real(&self, text: &mut String, v: f64, sem: Semantics, minwidth: i32) -> usize {
        if v < 0.0 && sem == Semantics::COUNTER {
            text.push('!');
            return minwidth.max(0) as usize;
        }
        if self.fixed != -1 {
            push_f64_text(text, "%*.*f", &[minwidth, self.fixed], v);
            return 0;
        }
        printreal_unpadded(text, v, minwidth)
    }

    /// [`Report::real`] appended to `line`, made in `text`.
    fn real_line(&self, line: &mut Vec<u8>, text: &mut String, v: f64, sem: Semantics, minwidth: i32) {
        text.clear();
        let width = self.real(text, v, sem, minwidth);
        pad_left(line, width, text.as_bytes());
    }

    /// One value as pmval prints it, appended to `line`: reals through
    /// `printreal` (made in `text`), the rest through `pmPrintValue`.
    fn value(&self, line: &mut Vec<u8>, text: &mut String, v: &InstValue, minwidth: i32) {
        if matches!(self.desc.ty, MetricType::FLOAT | MetricType::DOUBLE) {
            let d = extract_value(&v.value, self.desc.ty, MetricType::DOUBLE).ok().and_then(|a| a.as_f64());
            return self.real_line(line, text, d.unwrap_or(0.0), self.desc.sem, minwidth);
        }
        let _ = pcp_core::format::print_value(line, &v.value, self.desc.ty, minwidth);
    }

    /// Write the line `make` makes (in the room kept for a line, with
    /// the room for a value's text) at once.
    fn write_line(
        &mut self,
        out: &mut dyn Write,
        make: impl FnOnce(&Report, &mut Vec<u8>, &mut String) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let (mut line, mut text) = (std::mem::take(&mut self.line), std::mem::take(&mut self.text));
        line.clear();
        let done = make(self, &mut line, &mut text).and_then(|()| out.write_all(&line));
        (self.line, self.text) = (line, text);
        done
    }

    /// pmval's `printvals`.
    pub(super) fn print_vals(&mut self, out: &mut dyn Write, vs: &ValueSet) -> std::io::Result<()> {
        self.write_line(out, |rep, line, text| rep.vals_line(line, text, vs))
    }

    /// The line [`Report::print_vals`] writes.
    fn vals_line(&self, line: &mut Vec<u8>, text: &mut String, vs: &ValueSet) -> std::io::Result<()> {
        let values: &[InstValue] = vs.values.as_deref().unwrap_or(&[]);
        let cols = self.cols.max(0) as usize;
        if self.desc.indom.is_null() {
            if values.len() == 1 {
                self.value(line, text, &values[0], self.cols);
            } else {
                unknown(line, cols);
            }
            line.push(b'\n');
            return Ok(());
        }
        // (the reported instances and the values both in instance order)
        let mut at = 0;
        for p in &self.ipairs {
            match value_of(values, &mut at, p.id) {
                Some(v) => self.value(line, text, v, self.cols),
                None => unknown(line, cols),
            }
            line.push(b' ');
        }
        line.push(b'\n');
        let mut at = 0;
        for v in values {
            if self.iall && !self.known(&mut at, v.inst) {
                line.extend_from_slice(b"Warning: value=");
                self.value(line, text, v, 1);
                writeln!(line, ", but instance={} is unknown", v.inst)?;
            }
        }
        Ok(())
    }

    /// pmval's `printrate`, appended to `line` (made in `text`).
    fn rate(&self, line: &mut Vec<u8>, text: &mut String, a: &InstValue, b: &InstValue, delta: f64, minwidth: i32) {
        let get = |v: &InstValue| {
            extract_value(&v.value, self.desc.ty, MetricType::DOUBLE).ok().and_then(|x| x.as_f64()).unwrap_or(0.0)
        };
        let mut v = get(a) - get(b);
        if v < 0.0 && self.wrap {
            match self.desc.ty {
                MetricType::I32 | MetricType::U32 => v += u32::MAX as f64 + 1.0,
                MetricType::I64 | MetricType::U64 => v += u64::MAX as f64 + 1.0,
                _ => {}
            }
        }
        self.real_line(line, text, v / delta, Semantics::COUNTER, minwidth)
    }

    /// pmval's `printrates`.
    pub(super) fn print_rates(
        &mut self,
        out: &mut dyn Write,
        vs1: &ValueSet,
        t1: Timestamp,
        vs2: &ValueSet,
        t2: Timestamp,
    ) -> std::io::Result<()> {
        self.write_line(out, |rep, line, text| rep.rates_line(line, text, (vs1, t1), (vs2, t2)))
    }

    /// The line [`Report::print_rates`] writes.
    fn rates_line(
        &self,
        line: &mut Vec<u8>,
        text: &mut String,
        (vs1, t1): (&ValueSet, Timestamp),
        (vs2, t2): (&ValueSet, Timestamp),
    ) -> std::io::Result<()> {
        let v1: &[InstValue] = vs1.values.as_deref().unwrap_or(&[]);
        let v2: &[InstValue] = vs2.values.as_deref().unwrap_or(&[]);
        let cols = self.cols.max(0) as usize;
        let delta = self.scale * (t1.as_secs_f64() - t2.as_secs_f64());
        if self.desc.indom.is_null() {
            if v1.len() == 1 && v2.len() == 1 {
                self.rate(line, text, &v1[0], &v2[0], delta, self.cols);
            } else {
                unknown(line, cols);
            }
            line.push(b'\n');
            return Ok(());
        }
        let (mut at1, mut at2) = (0, 0);
        for p in &self.ipairs {
            let cur = value_of(v1, &mut at1, p.id);
            let old = cur.and_then(|c| value_of(v2, &mut at2, c.inst));
            match (cur, old) {
                (Some(c), Some(o)) => self.rate(line, text, c, o, delta, self.cols),
                _ => unknown(line, cols),
            }
            line.push(b' ');
        }
        line.push(b'\n');
        let mut at = 0;
        for (j, v) in v1.iter().enumerate() {
            let known = self.known(&mut at, v.inst);
            if self.iall && !known && v2.get(j).is_some_and(|o| o.inst == v.inst) {
                line.extend_from_slice(b"Warning: value=");
                self.rate(line, text, v, &v2[j], delta, 1);
                writeln!(line, ", but instance={} is unknown", v.inst)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The conversions made directly are what pmval's format strings make
    /// through the general formatter.
    #[test]
    #[allow(clippy::manual_range_contains)]
    fn printreal_conversions_are_its_formats() {
        let formats = |v: f64, w: i32| {
            if v == 0.0 {
                ("%*.0f.0   ", w - 5)
            } else if v < 0.1 || v > 9999.0 {
                ("%*.3E", w)
            } else if v <= 0.9999 {
                ("%*.4f", w)
            } else if v <= 9.999 {
                ("%*.3f ", w - 1)
            } else if v <= 99.99 {
                ("%*.2f  ", w - 2)
            } else if v <= 999.9 {
                ("%*.1f   ", w - 3)
            } else {
                ("%*.0f.    ", w - 5)
            }
        };
        let mut values =
            vec![0.0, -0.0, f64::INFINITY, -f64::INFINITY, f64::NAN, 0.1, 0.9999, 9.999, 99.99, 999.9, 9999.0];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = (x >> 11) as f64 / (1u64 << 53) as f64;
            let e = (x % 17) as i32 - 6;
            values.push(if x & 1 == 0 { m * 10f64.powi(e) } else { -m * 10f64.powi(e) });
        }
        for &v in &values {
            for w in -8..=24 {
                let (fmt, star) = formats(v, w);
                let mut want = String::new();
                assert!(push_f64_text(&mut want, fmt, &[star], v));
                let (spec, tail) = printreal_spec(v, w);
                let mut got = String::new();
                push_f64(&mut got, &spec, v);
                got.push_str(tail);
                assert_eq!(got, want, "{v} {w}");
                // made unpadded, the spaces put first
                let mut text = String::new();
                let width = printreal_unpadded(&mut text, v, w);
                let mut line = b"x".to_vec();
                pad_left(&mut line, width, text.as_bytes());
                assert_eq!(line, [b"x", want.as_bytes()].concat(), "{v} {w}");
            }
        }
    }
}
