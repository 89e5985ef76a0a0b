//! The context's services with Rust types at the edges: one `Result` per
//! name looked up, instances as [`Instance`] values, text as `String`,
//! replay steps as `Duration`.

use super::{Context, Mode, TextLevel};
use pcp_core::error::Subject;
use pcp_core::{Error, InDom, PmError, PmId, PmResult, Timestamp};
use std::time::Duration;

/// An instance of an instance domain: its identifier and its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    /// The instance identifier (`inst`).
    pub id: i32,
    /// The external name (`"cpu0"`, `"000001 /sbin/init"`).
    pub name: String,
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn instances((ids, names): super::Instances) -> Vec<Instance> {
    ids.into_iter().zip(names).map(|(id, name)| Instance { id, name: text(name) }).collect()
}

impl Context {
    /// The PMID of the metric `name` (`pmLookupName` of one name); the
    /// error names the metric.
    ///
    /// ```
    /// # let name = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3");
    /// let ctx = pcp::Context::archive(name).open()?;
    /// let pmid = ctx.lookup("sample.seconds")?;
    /// // (one of its names: the sample agent gives some metrics several)
    /// assert!(ctx.names_of(pmid)?.iter().any(|n| n == "sample.seconds"));
    /// let e = ctx.lookup("no.such.metric").unwrap_err();
    /// assert_eq!((e.code(), e.to_string().as_str()), (pcp::PmError::PM_ERR_NAME, "no.such.metric: Unknown metric name"));
    /// # Ok::<(), pcp::PmError>(())
    /// ```
    #[doc(alias = "pmLookupName")]
    pub fn lookup(&self, name: &str) -> Result<PmId, Error> {
        let (ids, _) = self.lookup_names(&[name])?;
        let found = ids.first().copied().filter(|&p| p != PmId::NULL);
        found.ok_or_else(|| Error::new(PmError::PM_ERR_NAME, Subject::Metric(name.to_string())))
    }

    /// The PMIDs of `names`, one `Result` per name, in order
    /// (`pmLookupName` of many: `PM_ERR_NAME` for a name not found, and
    /// each name's own error when the lookup fails as a whole); each error
    /// names its metric.
    #[doc(alias = "pmLookupName")]
    pub fn lookup_each(&self, names: &[&str]) -> Vec<Result<PmId, Error>> {
        match self.lookup_names(names) {
            Ok((ids, _)) => ids
                .into_iter()
                .zip(names)
                .map(|(p, n)| {
                    if p == PmId::NULL {
                        Err(Error::new(PmError::PM_ERR_NAME, Subject::Metric(n.to_string())))
                    } else {
                        Ok(p)
                    }
                })
                .collect(),
            // the lookup failed as a whole: each name on its own
            Err(_) => names.iter().map(|n| self.lookup(n)).collect(),
        }
    }

    /// The instances of `indom` now (`pmGetInDom`).
    ///
    /// ```
    /// # let name = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3");
    /// let mut ctx = pcp::Context::archive(name).open()?;
    /// // (its instance domains are logged a moment after it starts)
    /// ctx.set_origin(ctx.archive_start()? + std::time::Duration::from_secs(1));
    /// let indom = ctx.lookup_desc(ctx.lookup("sample.bin")?)?.indom;
    /// let bins = ctx.instances(indom)?;
    /// assert_eq!((bins[0].id, bins[0].name.as_str()), (100, "bin-100"));
    /// # Ok::<(), pcp::PmError>(())
    /// ```
    #[doc(alias = "pmGetInDom")]
    pub fn instances(&self, indom: InDom) -> PmResult<Vec<Instance>> {
        self.get_indom(indom).map(instances)
    }

    /// Every instance `indom` ever had in an archive (`pmGetInDomArchive`).
    #[doc(alias = "pmGetInDomArchive")]
    pub fn instances_archive(&self, indom: InDom) -> PmResult<Vec<Instance>> {
        self.get_indom_archive(indom).map(instances)
    }

    /// The name of instance `inst` of `indom` now (`pmNameInDom`).
    #[doc(alias = "pmNameInDom")]
    pub fn instance_name(&self, indom: InDom, inst: i32) -> PmResult<String> {
        self.name_indom(indom, inst).map(text)
    }

    /// A metric's help text (`pmLookupText`).
    #[doc(alias = "pmLookupText")]
    pub fn help_text(&self, pmid: PmId, level: TextLevel) -> PmResult<String> {
        self.lookup_text(pmid, level).map(text)
    }

    /// An instance domain's help text (`pmLookupInDomText`).
    #[doc(alias = "pmLookupInDomText")]
    pub fn indom_help_text(&self, indom: InDom, level: TextLevel) -> PmResult<String> {
        self.lookup_indom_text(indom, level).map(text)
    }

    /// When an archive context's archive (its first, of several) starts
    /// (`pmGetArchiveLabel`'s start); `PM_ERR_NOTARCHIVE` for other
    /// contexts. [`Context::archive_end`] gives the end.
    #[doc(alias = "pmGetArchiveLabel")]
    pub fn archive_start(&self) -> PmResult<Timestamp> {
        self.archive_source().map(|a| a.label().start).ok_or(PmError::PM_ERR_NOTARCHIVE)
    }

    /// Replay an archive from `from` in `mode`: values interpolated every
    /// `step` ([`Mode::Interp`]), or record after record forwards or
    /// backwards (`step` unused) (`pmSetMode`). A step too long for
    /// nanoseconds in 64 bits is `PM_ERR_MODE`.
    #[doc(alias = "pmSetMode")]
    pub fn replay(&mut self, mode: Mode, from: Timestamp, step: Duration) -> PmResult<()> {
        let ns = i64::try_from(step.as_nanos()).map_err(|_| PmError::PM_ERR_MODE)?;
        self.set_mode(mode, from, ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v3() -> Context {
        Context::archive(concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3")).open().unwrap()
    }

    #[test]
    fn one_result_per_name() {
        let ctx = v3();
        let got = ctx.lookup_each(&["sample.bin", "no.such", "sample.seconds"]);
        assert_eq!(got.len(), 3);
        assert!(got[0].is_ok() && got[2].is_ok());
        let e = got[1].as_ref().unwrap_err();
        assert_eq!((e.code(), e.name()), (PmError::PM_ERR_NAME, Some("no.such")));
        let one = ctx.lookup_each(&["no.such"]);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].as_ref().map_err(Error::code), Err(PmError::PM_ERR_NAME));
    }

    #[test]
    fn replay_steps_as_durations() {
        let mut ctx = v3();
        let start = ctx.archive_start().unwrap();
        let pmid = ctx.lookup("sample.seconds").unwrap();
        ctx.replay(Mode::Interp, start, Duration::from_millis(500)).unwrap();
        let a = ctx.fetch(&[pmid]).unwrap().timestamp;
        let b = ctx.fetch(&[pmid]).unwrap().timestamp;
        assert_eq!(b.duration_since(a), Some(Duration::from_millis(500)));
        assert_eq!(ctx.replay(Mode::Interp, start, Duration::MAX), Err(PmError::PM_ERR_MODE));
    }

    #[test]
    fn instances_and_text() {
        let mut ctx = v3();
        // (the instance domain is logged just after the archive starts)
        ctx.set_origin(ctx.archive_start().unwrap() + Duration::from_secs(1));
        let desc = ctx.lookup_desc(ctx.lookup("sample.bin").unwrap()).unwrap();
        let all = ctx.instances(desc.indom).unwrap();
        assert_eq!(all.len(), 9);
        assert_eq!(ctx.instances_archive(desc.indom).unwrap().len(), 9);
        assert_eq!(ctx.instance_name(desc.indom, all[3].id).unwrap(), all[3].name);
        assert!(ctx.help_text(desc.pmid, TextLevel::OneLine).is_ok_and(|t| !t.is_empty()));
        assert_eq!(v3().archive_start().map(|t| t.sec > 0), Ok(true));
        assert_eq!(Context::with_namespace(pcp_pmns::Pmns::new()).archive_start(), Err(PmError::PM_ERR_NOTARCHIVE));
    }
}
