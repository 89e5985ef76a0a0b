//! Fetch groups (`pmFetchGroup`, pmfetchgroup(3)): metrics named once,
//! then fetched together again and again, each value converted for the
//! caller (counters to rates, units rescaled, types cast) and given with
//! its instance's identifier and name.
//!
//! ```
//! # fn main() -> Result<(), pcp::PmError> {
//! use pcp::fetchgroup::{Conversion, FetchGroup};
//! use pcp::{Context, MetricType};
//! # let archive = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3");
//! let mut group = FetchGroup::new(Context::open_archive(archive)?);
//! // every instance of sample.bin; sample.seconds, a counter, as a rate
//! let bins = group.add("sample.bin")?;
//! let seconds = group.add_with("sample.seconds", Conversion::Auto, MetricType::DOUBLE)?;
//! for _ in 0..3 {
//!     group.fetch()?;
//!     for bin in group.values(bins) {
//!         println!("{}: {:?}", bin.name().unwrap_or("?"), bin.value);
//!     }
//!     // the first fetch has no rate yet: PM_ERR_AGAIN
//!     println!("seconds per second: {:?}", group.values(seconds)[0].value);
//! }
//! # Ok(())
//! # }
//! ```

use crate::Context;
use pcp_core::{
    extract_value, parse_units, AtomValue, Desc, FetchResult, InDom, InstValue, MetricType, PmError, PmId, PmResult,
    Semantics, Timestamp, Units, Value,
};
use std::collections::HashMap;
use std::sync::Arc;

/// How a fetch group converts a metric's values (pmfetchgroup(3)'s
/// `scale` argument).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Conversion {
    /// `NULL`: counters become rates, other metrics stay as they are.
    #[default]
    Auto,
    /// `"rate"`: the change since the previous fetch, per second, whatever
    /// the metric's semantics.
    Rate,
    /// `"instant"`: values as they are, counters included.
    Instant,
    /// Units as `pmParseUnitsStr` reads them (`"kbyte"`, `"Mbyte / sec"`):
    /// values rescaled to them, and made rates when their time dimension
    /// is one less than the metric's.
    Units(String),
}

/// A metric added to a [`FetchGroup`]: what [`FetchGroup::values`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle(usize);

/// One value of a fetch: its instance and the converted value, or why
/// there is none (`PM_ERR_AGAIN` for a rate at the first fetch).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The instance identifier (`PM_IN_NULL` for a metric without an
    /// instance domain).
    pub inst: i32,
    /// The instance's name, when the metric has an instance domain and the
    /// name is known.
    pub instance_name: Option<Arc<str>>,
    /// The value, in the type asked for.
    pub value: PmResult<AtomValue>,
}

impl Sample {
    /// The instance's name, if any.
    pub fn name(&self) -> Option<&str> {
        self.instance_name.as_deref()
    }

    /// The value as a double, when it is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value.as_ref().ok()? {
            AtomValue::I32(v) => Some(f64::from(*v)),
            AtomValue::U32(v) => Some(f64::from(*v)),
            AtomValue::I64(v) => Some(*v as f64),
            AtomValue::U64(v) => Some(*v as f64),
            AtomValue::Float(v) => Some(f64::from(*v)),
            AtomValue::Double(v) => Some(*v),
            _ => None,
        }
    }
}

/// What is done to a metric's values (`pmFGC`).
#[derive(Clone, Copy, Debug)]
struct Conv {
    rate: bool,
    /// Rescaling to these units, then multiplying by the factor.
    units: Option<(Units, f64)>,
}

#[derive(Debug)]
struct Member {
    pmid: PmId,
    desc: Desc,
    conv: Conv,
    out: MetricType,
    /// `Some` for one instance (`pmExtendFetchGroup_item`), `None` for
    /// all of them (`pmExtendFetchGroup_indom`).
    inst: Option<i32>,
    samples: Vec<Sample>,
    status: PmResult<()>,
}

/// A fetch group: a context and the metrics fetched from it together.
///
/// `pmCreateFetchGroup` makes a context of its own; here the group takes
/// the one it is given (set its replay mode first, or through
/// [`FetchGroup::context_mut`] before the first fetch: changing it later
/// can spoil one rate).
#[doc(alias = "pmFG")]
#[doc(alias = "pmCreateFetchGroup")]
#[derive(Debug)]
pub struct FetchGroup {
    ctx: Context,
    members: Vec<Member>,
    /// Each metric once, in the order first added.
    pmids: Vec<PmId>,
    prev: Option<FetchResult>,
    cur: Option<FetchResult>,
    /// Instance names by instance domain, filled from `pmGetInDom` when an
    /// instance not seen before turns up.
    names: HashMap<InDom, HashMap<i32, Arc<str>>>,
    wrap: bool,
}

impl FetchGroup {
    /// A group fetching from `ctx`, with no metrics yet.
    pub fn new(ctx: Context) -> FetchGroup {
        FetchGroup {
            ctx,
            members: Vec::new(),
            pmids: Vec::new(),
            prev: None,
            cur: None,
            names: HashMap::new(),
            wrap: false,
        }
    }

    /// The group's context (`pmGetFetchGroupContext`).
    #[doc(alias = "pmGetFetchGroupContext")]
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The group's context, to change (its replay mode, say) before the
    /// first fetch.
    pub fn context_mut(&mut self) -> &mut Context {
        &mut self.ctx
    }

    /// The context back, the group gone (`pmDestroyFetchGroup` keeps
    /// nothing; here the context lives on).
    #[doc(alias = "pmDestroyFetchGroup")]
    pub fn into_context(self) -> Context {
        self.ctx
    }

    /// Whether a counter that went down wrapped (`$PCP_COUNTER_WRAP`):
    /// its rate then counts the wrap; otherwise that value is
    /// `PM_ERR_VALUE`.
    pub fn set_counter_wrap(&mut self, wrap: bool) {
        self.wrap = wrap;
    }

    /// Add every instance of `metric` (or its one value, for a metric
    /// without an instance domain), counters as rates, as doubles
    /// (`pmExtendFetchGroup_indom` with no scale).
    pub fn add(&mut self, metric: &str) -> PmResult<Handle> {
        self.add_with(metric, Conversion::Auto, MetricType::DOUBLE)
    }

    /// Add every instance of `metric`, converted as `conv` says, as type
    /// `out` (`pmExtendFetchGroup_indom`).
    #[doc(alias = "pmExtendFetchGroup_indom")]
    pub fn add_with(&mut self, metric: &str, conv: Conversion, out: MetricType) -> PmResult<Handle> {
        let (pmid, desc, conv) = self.prepare(metric, &conv, out)?;
        Ok(self.push(Member {
            pmid,
            desc,
            conv,
            out,
            inst: None,
            samples: Vec::new(),
            status: Err(PmError::PM_ERR_VALUE),
        }))
    }

    /// Add one instance of `metric`, by name, converted as `conv` says, as
    /// type `out` (`pmExtendFetchGroup_item`). A metric without an
    /// instance domain takes no instance (`PM_ERR_INDOM`).
    #[doc(alias = "pmExtendFetchGroup_item")]
    pub fn add_instance(
        &mut self,
        metric: &str,
        instance: &str,
        conv: Conversion,
        out: MetricType,
    ) -> PmResult<Handle> {
        let (pmid, desc, conv) = self.prepare(metric, &conv, out)?;
        if desc.indom == InDom::NULL {
            return Err(PmError::PM_ERR_INDOM);
        }
        let inst = match self.ctx.lookup_indom(desc.indom, instance.as_bytes()) {
            Ok(i) => i,
            // an archive's instance may come later
            Err(e) => self.ctx.lookup_indom_archive(desc.indom, instance.as_bytes()).map_err(|_| e)?,
        };
        let name: Arc<str> = Arc::from(instance);
        self.names.entry(desc.indom).or_default().insert(inst, name);
        Ok(self.push(Member {
            pmid,
            desc,
            conv,
            out,
            inst: Some(inst),
            samples: Vec::new(),
            status: Err(PmError::PM_ERR_VALUE),
        }))
    }

    fn prepare(&self, metric: &str, conv: &Conversion, out: MetricType) -> PmResult<(PmId, Desc, Conv)> {
        let (pmids, _) = self.ctx.lookup_names(&[metric])?;
        let pmid = pmids.first().copied().filter(|&p| p != PmId::NULL).ok_or(PmError::PM_ERR_NAME)?;
        let desc = self.ctx.lookup_desc(pmid)?;
        let numeric_or_string = |t: MetricType| {
            matches!(
                t,
                MetricType::I32
                    | MetricType::U32
                    | MetricType::I64
                    | MetricType::U64
                    | MetricType::FLOAT
                    | MetricType::DOUBLE
                    | MetricType::STRING
            )
        };
        if !numeric_or_string(desc.ty) || !numeric_or_string(out) {
            return Err(PmError::PM_ERR_TYPE);
        }
        Ok((pmid, desc, conversion(&desc, conv)?))
    }

    fn push(&mut self, member: Member) -> Handle {
        if !self.pmids.contains(&member.pmid) {
            self.pmids.push(member.pmid);
        }
        self.members.push(member);
        Handle(self.members.len() - 1)
    }

    /// Fetch every metric added, and convert its values (`pmFetchGroup`).
    /// An error of the fetch as a whole is returned (and every metric's
    /// values are gone); errors of one metric or one value are theirs.
    #[doc(alias = "pmFetchGroup")]
    pub fn fetch(&mut self) -> PmResult<()> {
        if self.pmids.is_empty() {
            return Ok(());
        }
        let result = match self.ctx.fetch(&self.pmids) {
            Ok(r) => r,
            Err(e) => {
                for m in &mut self.members {
                    m.samples.clear();
                    m.status = Err(e);
                }
                return Err(e);
            }
        };
        self.prev = self.cur.take();
        for k in 0..self.members.len() {
            self.convert(k, &result);
        }
        self.cur = Some(result);
        Ok(())
    }

    /// Forget the values fetched, and so the rates' previous values
    /// (`pmClearFetchGroup`); the metrics stay.
    #[doc(alias = "pmClearFetchGroup")]
    pub fn clear(&mut self) {
        self.prev = None;
        self.cur = None;
        for m in &mut self.members {
            m.samples.clear();
            m.status = Err(PmError::PM_ERR_VALUE);
        }
    }

    /// The values of `metric` from the last fetch: one per instance (in
    /// the order the source gave them), or the one instance asked for.
    pub fn values(&self, metric: Handle) -> &[Sample] {
        &self.members[metric.0].samples
    }

    /// Whether the last fetch had values for `metric` at all (its error
    /// if not, such as `PM_ERR_VALUE` before the first fetch).
    pub fn status(&self, metric: Handle) -> PmResult<()> {
        self.members[metric.0].status
    }

    /// When the last fetch's values were taken.
    pub fn timestamp(&self) -> Option<Timestamp> {
        self.cur.as_ref().map(|r| r.timestamp)
    }

    /// Metric `k`'s samples from `cur`, the fetch just made.
    fn convert(&mut self, k: usize, cur: &FetchResult) {
        let m = &self.members[k];
        let Some(set) = cur.sets.iter().find(|s| s.pmid == m.pmid) else {
            let m = &mut self.members[k];
            m.samples.clear();
            m.status = Err(PmError::PM_ERR_VALUE);
            return;
        };
        let values = match &set.values {
            Ok(v) => v,
            Err(e) => {
                let m = &mut self.members[k];
                m.samples.clear();
                m.status = Err(*e);
                return;
            }
        };
        // a discrete metric without values keeps its last ones
        if m.desc.sem == Semantics::DISCRETE && values.is_empty() {
            return;
        }
        let wanted: Vec<&InstValue> = match m.inst {
            Some(i) if m.desc.indom != InDom::NULL => values.iter().filter(|v| v.inst == i).collect(),
            _ => values.iter().collect(),
        };
        let indom = m.desc.indom;
        if indom != InDom::NULL {
            let known = self.names.get(&indom);
            if wanted.iter().any(|v| known.is_none_or(|n| !n.contains_key(&v.inst))) {
                self.refresh_names(indom);
            }
        }
        let m = &self.members[k];
        let prev = self.prev.as_ref().map(|p| (p.timestamp, p.sets.iter().find(|s| s.pmid == m.pmid)));
        let names = self.names.get(&indom);
        let mut samples: Vec<Sample> = wanted
            .iter()
            .map(|v| Sample {
                inst: v.inst,
                instance_name: names.and_then(|n| n.get(&v.inst)).cloned(),
                value: value_of(m, v, cur.timestamp, prev, self.wrap),
            })
            .collect();
        if let Some(i) = m.inst {
            if samples.is_empty() {
                let name = names.and_then(|n| n.get(&i)).cloned();
                samples.push(Sample { inst: i, instance_name: name, value: Err(PmError::PM_ERR_VALUE) });
            }
        }
        let m = &mut self.members[k];
        m.samples = samples;
        m.status = Ok(());
    }

    /// `pmGetInDom` again, for names of instances not seen before.
    fn refresh_names(&mut self, indom: InDom) {
        let map = self.names.entry(indom).or_default();
        if let Ok((ids, names)) = self.ctx.get_indom(indom) {
            for (id, name) in ids.into_iter().zip(names) {
                map.entry(id).or_insert_with(|| Arc::from(String::from_utf8_lossy(&name).as_ref()));
            }
        }
    }
}

/// What `scale` asks of a metric described by `desc`
/// (`pmfg_prep_conversion`).
fn conversion(desc: &Desc, conv: &Conversion) -> PmResult<Conv> {
    Ok(match conv {
        Conversion::Auto => Conv { rate: desc.sem == Semantics::COUNTER, units: None },
        Conversion::Rate => Conv { rate: true, units: None },
        Conversion::Instant => Conv { rate: false, units: None },
        Conversion::Units(text) => {
            let (units, mult) = parse_units(text).map_err(|_| PmError::PM_ERR_CONV)?;
            let have = desc.units;
            let same_but_time = have.dim_space() == units.dim_space() && have.dim_count() == units.dim_count();
            if same_but_time && have.dim_time() == units.dim_time() {
                Conv { rate: false, units: Some((units, mult)) }
            } else if same_but_time && have.dim_time() == units.dim_time() + 1 {
                // a rate: per second, then per the time unit asked for
                let per = match units.scale_time() {
                    0 => 1e-9,
                    1 => 1e-6,
                    2 => 1e-3,
                    3 => 1.0,
                    4 => 60.0,
                    5 => 3600.0,
                    _ => return Err(PmError::PM_ERR_CONV),
                };
                let back = Units::new(
                    units.dim_space(),
                    units.dim_time() + 1,
                    units.dim_count(),
                    units.scale_space(),
                    units.scale_time(),
                    units.scale_count(),
                )?;
                Conv { rate: true, units: Some((back, mult * per)) }
            } else {
                return Err(PmError::PM_ERR_CONV);
            }
        }
    })
}

/// One value converted as its metric asks (`pmfg_extract_convert_item`).
fn value_of(
    m: &Member,
    v: &InstValue,
    now: Timestamp,
    prev: Option<(Timestamp, Option<&pcp_core::ValueSet>)>,
    wrap: bool,
) -> PmResult<AtomValue> {
    if !m.conv.rate && m.conv.units.is_none() {
        return extract(&v.value, m.desc.ty, m.out);
    }
    let x = as_double(&v.value, m.desc.ty)?;
    let x = if m.conv.rate {
        let Some((then, set)) = prev else { return Err(PmError::PM_ERR_AGAIN) };
        let set = set.ok_or(PmError::PM_ERR_VALUE)?;
        let values = set.values.as_ref().map_err(|e| *e)?;
        let old =
            values.iter().find(|p| m.desc.indom == InDom::NULL || p.inst == v.inst).ok_or(PmError::PM_ERR_VALUE)?;
        let old = as_double(&old.value, m.desc.ty)?;
        let dt = (now.as_secs_f64() - then.as_secs_f64()).max(1e-9);
        let mut delta = x - old;
        if delta < 0.0 {
            if !wrap {
                return Err(PmError::PM_ERR_VALUE);
            }
            delta += match m.desc.ty {
                MetricType::I32 | MetricType::U32 => f64::from(u32::MAX) + 1.0,
                MetricType::I64 | MetricType::U64 => u64::MAX as f64 + 1.0,
                _ => 0.0,
            };
        }
        delta / dt
    } else {
        x
    };
    let x = match m.conv.units {
        Some((units, mult)) => {
            let scaled = pcp_core::conv_scale(&AtomValue::Double(x), m.desc.units, units)?;
            let AtomValue::Double(d) = scaled else { return Err(PmError::PM_ERR_CONV) };
            d * mult
        }
        None => x,
    };
    from_double(x, m.out)
}

/// A value as a double, strings read as numbers.
fn as_double(value: &Value, ty: MetricType) -> PmResult<f64> {
    if ty == MetricType::STRING {
        let AtomValue::String(s) = extract_value(value, ty, ty)? else { return Err(PmError::PM_ERR_CONV) };
        return std::str::from_utf8(&s).ok().and_then(|s| s.trim().parse().ok()).ok_or(PmError::PM_ERR_CONV);
    }
    match extract_value(value, ty, MetricType::DOUBLE)? {
        AtomValue::Double(d) => Ok(d),
        _ => Err(PmError::PM_ERR_CONV),
    }
}

/// A value as type `out`, numbers to strings and back included
/// (`__pmExtractValue2`).
fn extract(value: &Value, ty: MetricType, out: MetricType) -> PmResult<AtomValue> {
    if ty != MetricType::STRING && out == MetricType::STRING {
        let text = match extract_value(value, ty, ty)? {
            AtomValue::I32(v) => v.to_string(),
            AtomValue::U32(v) => v.to_string(),
            AtomValue::I64(v) => v.to_string(),
            AtomValue::U64(v) => v.to_string(),
            AtomValue::Float(v) => c_exp(f64::from(v), 9),
            AtomValue::Double(v) => c_exp(v, 17),
            _ => return Err(PmError::PM_ERR_CONV),
        };
        return Ok(AtomValue::String(text.into_bytes()));
    }
    if ty == MetricType::STRING && out != MetricType::STRING {
        return from_double(as_double(value, ty)?, out);
    }
    extract_value(value, ty, out)
}

/// `%.Ne`, as C prints it.
fn c_exp(v: f64, digits: usize) -> String {
    pcp_core::support::cfmt::sprintf_f64(&format!("%.{digits}e"), &[], v).unwrap_or_else(|| v.to_string())
}

/// A double as type `out`, range checked (`__pmStuffDoubleValue`).
fn from_double(v: f64, out: MetricType) -> PmResult<AtomValue> {
    let trunc = PmError::PM_ERR_TRUNC;
    Ok(match out {
        MetricType::I32 if v > f64::from(i32::MAX) || v < f64::from(i32::MIN) => return Err(trunc),
        MetricType::I32 => AtomValue::I32(v as i32),
        MetricType::U32 if v > f64::from(u32::MAX) => return Err(trunc),
        MetricType::U32 if v < 0.0 => return Err(PmError::PM_ERR_SIGN),
        MetricType::U32 => AtomValue::U32(v as u32),
        MetricType::I64 if v > i64::MAX as f64 || v < i64::MIN as f64 => return Err(trunc),
        MetricType::I64 => AtomValue::I64(v as i64),
        MetricType::U64 if v > u64::MAX as f64 => return Err(trunc),
        MetricType::U64 if v < 0.0 => return Err(PmError::PM_ERR_SIGN),
        MetricType::U64 => AtomValue::U64(v as u64),
        MetricType::FLOAT if v.abs() > f64::from(f32::MAX) => return Err(trunc),
        MetricType::FLOAT => AtomValue::Float(v as f32),
        MetricType::DOUBLE => AtomValue::Double(v),
        MetricType::STRING => AtomValue::String(c_exp(v, 17).into_bytes()),
        _ => return Err(PmError::PM_ERR_TYPE),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcp_core::PM_IN_NULL;

    fn fixture(name: &str) -> String {
        format!("{}/../pcp-archive/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn instances_with_names_and_rates() {
        let mut g = FetchGroup::new(Context::open_archive(&fixture("v3")).unwrap());
        let bins = g.add("sample.bin").unwrap();
        let secs = g.add("sample.seconds").unwrap();
        let secs_now = g.add_with("sample.seconds", Conversion::Instant, MetricType::U64).unwrap();
        assert_eq!(g.status(bins), Err(PmError::PM_ERR_VALUE));
        g.fetch().unwrap();
        let first = g.values(bins);
        assert!(first.len() > 1);
        assert!(first.iter().all(|s| s.name().is_some_and(|n| n.starts_with("bin-")) && s.value.is_ok()));
        assert_eq!(g.values(secs)[0].value, Err(PmError::PM_ERR_AGAIN));
        let t0 = g.timestamp().unwrap();
        let AtomValue::U64(s0) = g.values(secs_now)[0].value.clone().unwrap() else { panic!() };
        g.fetch().unwrap();
        let dt = g.timestamp().unwrap().as_secs_f64() - t0.as_secs_f64();
        let AtomValue::U64(s1) = g.values(secs_now)[0].value.clone().unwrap() else { panic!() };
        let rate = g.values(secs)[0].as_f64().unwrap();
        assert!((rate - (s1 - s0) as f64 / dt).abs() < 1e-9, "{rate}");
        assert_eq!(g.values(secs)[0].inst, PM_IN_NULL);
    }

    #[test]
    fn one_instance_rescaled_and_cast() {
        let mut g = FetchGroup::new(Context::open_archive(&fixture("v3")).unwrap());
        let bin = g.add_instance("sample.bin", "bin-300", Conversion::Instant, MetricType::STRING).unwrap();
        let hundred = g.add_with("sample.double.hundred", Conversion::Instant, MetricType::I32).unwrap();
        g.fetch().unwrap();
        let v = &g.values(bin)[0];
        assert_eq!((v.inst, v.name()), (300, Some("bin-300")));
        assert_eq!(v.value, Ok(AtomValue::String(b"300".to_vec())));
        assert_eq!(g.values(hundred)[0].value, Ok(AtomValue::I32(100)));
        assert_eq!(
            g.add_instance("sample.double.hundred", "x", Conversion::Auto, MetricType::DOUBLE),
            Err(PmError::PM_ERR_INDOM)
        );
        assert_eq!(g.add("no.such.metric"), Err(PmError::PM_ERR_NAME));
        assert_eq!(
            g.add_with("sample.aggregate.hullo", Conversion::Auto, MetricType::DOUBLE),
            Err(PmError::PM_ERR_TYPE)
        );
    }

    #[test]
    fn conversions_as_pmfg_prepares_them() {
        // sample.seconds: a counter in seconds
        let mut g = FetchGroup::new(Context::open_archive(&fixture("v3")).unwrap());
        let ms = g.add_with("sample.seconds", Conversion::Units("millisec".into()), MetricType::DOUBLE).unwrap();
        let util = g.add_with("sample.seconds", Conversion::Units("count / hour".into()), MetricType::DOUBLE);
        assert_eq!(util.err(), Some(PmError::PM_ERR_CONV));
        g.fetch().unwrap();
        let AtomValue::Double(first) = g.values(ms)[0].value.clone().unwrap() else { panic!() };
        assert_eq!(first.fract(), 0.0);
        assert!(first >= 1000.0);
    }

    #[test]
    fn doubles_stuffed_as_c_does() {
        assert_eq!(from_double(1e10, MetricType::I32), Err(PmError::PM_ERR_TRUNC));
        assert_eq!(from_double(-1.0, MetricType::U64), Err(PmError::PM_ERR_SIGN));
        assert_eq!(from_double(2.5, MetricType::I64), Ok(AtomValue::I64(2)));
        assert_eq!(from_double(1.0, MetricType::STRING), Ok(AtomValue::String(b"1.00000000000000000e+00".to_vec())));
    }
}
