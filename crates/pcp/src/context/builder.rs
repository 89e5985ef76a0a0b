//! Opening contexts with options: [`Context::archive`], [`Context::host`]
//! and [`Context::local`].

use super::Context;
use crate::derived::SharedRegistry;
use crate::local::LocalSpec;
use crate::timezone::Zone;
use pcp_core::{Error, PmError, PmResult};
use std::path::PathBuf;

/// Which time zone a context reports times in (`pmNewZone`,
/// `pmNewContextZone`, `pmUseZone`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeZone {
    /// This machine's (`$TZ`, else its local time).
    #[default]
    Local,
    /// Coordinated Universal Time.
    Utc,
    /// The metrics' source's: the zone an archive was recorded in, or
    /// pmcd's host's (`pmNewContextZone`, the tools' `-z`).
    Source,
    /// A zone as `$TZ` names it, e.g. `"Europe/Paris"` or `"EST5EDT"`
    /// (the tools' `-Z`).
    Named(String),
}

/// A line libpcp would have written to standard error while a context was
/// opened or used, such as a complaint about a name space file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The text, without its newline.
    pub text: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl Diagnostic {
    /// One diagnostic per line of what libpcp would have printed.
    pub(crate) fn lines(bytes: &[u8]) -> Vec<Diagnostic> {
        String::from_utf8_lossy(bytes).lines().map(|l| Diagnostic { text: l.to_string() }).collect()
    }
}

/// What every kind of context can be opened with.
#[derive(Clone, Debug, Default)]
struct Common {
    derived: Option<SharedRegistry>,
    zone: TimeZone,
    trace: Option<pcp_core::debug::Trace>,
}

impl Common {
    fn apply(&self, mut ctx: Context) -> PmResult<Context> {
        if let Some(t) = &self.trace {
            ctx.set_trace(t.clone());
        }
        if let Some(r) = &self.derived {
            ctx.use_registry(r);
        }
        ctx.zone = Some(match &self.zone {
            TimeZone::Local => Zone::local(),
            TimeZone::Utc => Zone::utc(),
            TimeZone::Named(tz) => Zone::new(tz)?,
            TimeZone::Source => ctx.source_zone()?,
        });
        Ok(ctx)
    }
}

/// Options for an archive context, from [`Context::archive`].
#[derive(Clone, Debug)]
#[must_use = "nothing is opened until `open` is called"]
pub struct ArchiveOptions {
    name: String,
    check_features: bool,
    common: Common,
}

/// Options for a host context, from [`Context::host`].
#[derive(Clone, Debug)]
#[must_use = "nothing is opened until `open` is called"]
pub struct HostOptions {
    spec: String,
    common: Common,
}

/// Options for a local context, from [`Context::local`].
#[derive(Debug)]
#[must_use = "nothing is opened until `open` is called"]
pub struct LocalOptions {
    spec: LocalSpec,
    common: Common,
}

macro_rules! common_options {
    ($t:ident) => {
        impl $t {
            /// Make the derived metrics registered in `registry` available
            /// in the context, those registered later included
            /// (`pmRegisterDerived`'s global metrics).
            pub fn derived(mut self, registry: &SharedRegistry) -> Self {
                self.common.derived = Some(registry.clone());
                self
            }

            /// Trace into `trace` as its debug options select, and put the
            /// derived metrics' messages there ([`Context::set_trace`]).
            pub fn trace(mut self, trace: &pcp_core::debug::Trace) -> Self {
                self.common.trace = Some(trace.clone());
                self
            }

            /// Report times in `zone` ([`Context::zone`]).
            pub fn time_zone(mut self, zone: TimeZone) -> Self {
                self.common.zone = zone;
                self
            }
        }
    };
}
common_options!(ArchiveOptions);
common_options!(HostOptions);
common_options!(LocalOptions);

impl ArchiveOptions {
    /// Whether to refuse archives whose label has feature bits PCP 6.0.3
    /// does not know (`PM_ERR_FEATURE`); on unless
    /// `PM_CTXFLAG_NO_FEATURE_CHECK` is wanted.
    #[doc(alias = "PM_CTXFLAG_NO_FEATURE_CHECK")]
    pub fn check_features(mut self, check: bool) -> Self {
        self.check_features = check;
        self
    }

    /// Open the archive (`pmNewContext(PM_CONTEXT_ARCHIVE, name)`); the
    /// error names the archive.
    pub fn open(self) -> Result<Context, Error> {
        Ok(self.common.apply(Context::open_archive_checking(&self.name, self.check_features)?)?)
    }
}

impl HostOptions {
    /// Connect to pmcd (`pmNewContext(PM_CONTEXT_HOST, spec)`); the
    /// error names the host.
    pub fn open(self) -> Result<Context, Error> {
        let ctx = match &self.common.trace {
            Some(t) => Context::open_host_traced(&self.spec, t)?,
            None => Context::open_host(&self.spec)?,
        };
        Ok(self.common.apply(ctx)?)
    }
}

impl LocalOptions {
    /// Read the metrics from a copy of a machine's `/proc` and `/sys`
    /// under `root` instead of this machine's, with the built-in names.
    pub fn root(mut self, root: impl Into<PathBuf>) -> Self {
        self.spec = LocalSpec::snapshot(root);
        self
    }

    /// Open the local context (`pmNewContext(PM_CONTEXT_LOCAL)`).
    pub fn open(self) -> Result<Context, Error> {
        self.open_with_diagnostics().0
    }

    /// [`LocalOptions::open`], with what libpcp would have printed while
    /// loading the name space (a default name space file that does not
    /// parse fails with `PM_ERR_NOPMNS`, and these say why).
    pub fn open_with_diagnostics(self) -> (Result<Context, Error>, Vec<Diagnostic>) {
        let (ctx, bytes) = match &self.common.trace {
            Some(t) => Context::open_local_traced(self.spec, t),
            None => Context::open_local_with(self.spec),
        };
        (ctx.and_then(|c| Ok(self.common.apply(c)?)), Diagnostic::lines(&bytes))
    }
}

impl Context {
    /// Options for a context over the archive `name` (its base name, any
    /// of its files, a directory of archives or a comma-separated list);
    /// [`ArchiveOptions::open`] opens it.
    ///
    /// ```
    /// # let name = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-archive/tests/fixtures/v3");
    /// use pcp::{Context, TimeZone};
    /// let mut ctx = Context::archive(name).time_zone(TimeZone::Source).open()?;
    /// assert!(ctx.archive_start()? < ctx.archive_end()?);
    /// # Ok::<(), pcp::PmError>(())
    /// ```
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "PM_CONTEXT_ARCHIVE")]
    pub fn archive(name: &str) -> ArchiveOptions {
        ArchiveOptions { name: name.to_string(), check_features: true, common: Common::default() }
    }

    /// Options for a context over pmcd on a host (`"localhost"`,
    /// `"pcp://host:44321"`, `"unix:/path"`, ...); [`HostOptions::open`]
    /// connects.
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "PM_CONTEXT_HOST")]
    pub fn host(spec: &str) -> HostOptions {
        HostOptions { spec: spec.to_string(), common: Common::default() }
    }

    /// Options for a context over this machine's metrics read in-process
    /// (see [`crate::local`]); [`LocalOptions::open`] opens it.
    ///
    /// ```
    /// # let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../pcp-linux/tests/snapshot/vm1");
    /// use pcp::Context;
    /// // a copy of another machine's /proc and /sys
    /// let ctx = Context::local().root(root).open()?;
    /// let ncpu = ctx.lookup("hinv.ncpu")?;
    /// assert_eq!(ctx.lookup_desc(ncpu)?.pmid, ncpu);
    /// # Ok::<(), pcp::PmError>(())
    /// ```
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "PM_CONTEXT_LOCAL")]
    pub fn local() -> LocalOptions {
        LocalOptions { spec: LocalSpec::system(), common: Common::default() }
    }

    /// The time zone the context reports times in (this machine's unless
    /// it was opened with [`ArchiveOptions::time_zone`] or the like).
    pub fn zone(&self) -> Zone {
        self.zone.clone().unwrap_or_else(Zone::local)
    }

    /// The zone of the context's source: the archive's, or pmcd's host's
    /// (`pmNewContextZone`).
    #[doc(alias = "pmNewContextZone")]
    fn source_zone(&self) -> PmResult<Zone> {
        if let Some(a) = self.archive_source() {
            let label = a.label();
            let tz = if label.zoneinfo.is_empty() { &label.timezone } else { &label.zoneinfo };
            return Zone::from_tz_env(&String::from_utf8_lossy(tz));
        }
        let pmid = self.lookup("pmcd.timezone")?;
        let mut probe = self.dup_untraced()?;
        let result = probe.fetch(&[pmid])?;
        let value =
            result.sets.first().and_then(|s| s.values.as_ref().ok()?.first().cloned()).ok_or(PmError::PM_ERR_VALUE)?;
        match pcp_core::extract_value(&value.value, pcp_core::MetricType::STRING, pcp_core::MetricType::STRING)? {
            pcp_core::AtomValue::String(tz) => Zone::from_tz_env(&String::from_utf8_lossy(&tz)),
            _ => Err(PmError::PM_ERR_CONV),
        }
    }
}
