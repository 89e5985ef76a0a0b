//! The host-only services of a [`Context`].

use super::*;

/// The host side of the [`Context`] facade: opening a host context, and
/// the services only host contexts have (or that differ for them).
impl Context {
    /// `pmNewContext(PM_CONTEXT_HOST, spec)`: a context whose names,
    /// descriptors, instances, help text, labels and values come from
    /// pmcd on the host `spec` names (see [`HostSpec`]). The error names
    /// the host.
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "PM_CONTEXT_HOST")]
    pub fn open_host(spec: &str) -> Result<Context, Error> {
        HostSource::open(spec).map(Context::with_host)
    }

    /// [`Context::open_host`], tracing into `trace` from the start (the
    /// handshake's PDUs under `-Dpdu`), as [`Context::set_trace`] then
    /// traces the rest. What the handshake traced is in `trace`'s buffer
    /// whether the connection succeeds or not.
    #[doc(alias = "pmNewContext")]
    pub fn open_host_traced(spec: &str, trace: &pcp_core::debug::Trace) -> Result<Context, Error> {
        let opened = HostSource::open_traced(spec, trace);
        if trace.on(DebugFlag::Context) {
            trace_new_host_context(trace, spec, opened.as_ref().map(HostSource::fd).map_err(|e| e.code()));
        }
        let mut ctx = opened.map(Context::with_host)?;
        ctx.set_trace(trace.clone());
        Ok(ctx)
    }

    /// A host context over a source already connected (tests reach a
    /// fake pmcd this way).
    pub fn with_host(host: HostSource) -> Context {
        Context::from_source(Box::new(host), None)
    }

    /// `pmReconnectContext`: connect a host context to pmcd again (see
    /// [`HostSource::reconnect`]); other contexts have nothing to do.
    /// After a reconnection the derived metrics are bound afresh when
    /// next used, against what pmcd has now (their `delta()` and
    /// `rate()` start over), as pmRegisterDerived(3) says.
    ///
    /// Under `-Dcontext` it is traced as libpcp traces
    /// `pmReconnectContext` (with [`Context::handle`]).
    #[doc(alias = "pmReconnectContext")]
    pub fn reconnect(&self) -> PmResult<()> {
        self.reconnect_at(std::time::Instant::now())
    }

    /// [`Context::reconnect`] as if the time were `now` (see
    /// [`HostSource::reconnect_at`]).
    pub fn reconnect_at(&self, now: std::time::Instant) -> PmResult<()> {
        let traced = self.trace().on(DebugFlag::Context);
        let handle = self.handle();
        let done = format!("pmReconnectContext({handle}) -> {handle}\n");
        let Some(h) = self.host_source() else {
            if traced {
                self.trace().write_bytes(done.as_bytes());
            }
            return Ok(());
        };
        // whole seconds until `at`, as libpcp counts them
        let secs = |at: Option<std::time::Instant>| {
            at.map_or(0, |at| at.saturating_duration_since(now).as_secs_f64().round() as i64)
        };
        let too_soon = h.retry_at().filter(|&at| now < at);
        let reconnected = h.reconnect_at(now);
        if traced {
            let line = match (&reconnected, too_soon) {
                (Ok(()), _) => format!("pmReconnectContext({handle}), done\n{done}"),
                (Err(e), Some(at)) => format!(
                    "pmReconnectContext({handle}) -> {}, too soon (need wait another {} secs)\n",
                    e.code(),
                    secs(Some(at))
                ),
                (Err(_), None) => format!(
                    "pmReconnectContext({handle}), failed (wait {} secs before next attempt)\n",
                    secs(h.retry_at())
                ),
            };
            self.trace().write_bytes(line.as_bytes());
        }
        reconnected?;
        self.unbind_derived();
        Ok(())
    }

    /// `pmDupContext` of a host context: a new connection to the same
    /// pmcd with a copy of the profile (sent before the first fetch).
    /// Other contexts are `PM_ERR_NOTHOST` here; [`Context::dup`] takes
    /// every kind.
    #[doc(alias = "pmDupContext")]
    pub fn dup_host(&self) -> PmResult<Context> {
        let h = self.host_source().ok_or(PmError::PM_ERR_NOTHOST)?;
        let mut c = Context::with_host(h.dup()?);
        c.copy_profile_from(self);
        Ok(c)
    }

    /// `pmFetch` of the same metrics from many contexts, as a poller of
    /// many hosts wants it: the host contexts' requests all go out before
    /// any reply is read (see [`HostSource::fetch_many`]), so one thread
    /// waits for the slowest pmcd rather than for the sum of them. Other
    /// contexts, and host contexts for which `pmids` names a derived
    /// metric, fetch one after another as [`Context::fetch`] does. One
    /// result per context, in order.
    #[doc(alias = "pmFetch")]
    pub fn fetch_all(ctxs: &mut [Context], pmids: &[PmId]) -> Vec<PmResult<FetchResult>> {
        let plain = |c: &Context| c.host_source().is_some() && !pmids.iter().any(|&p| c.is_derived_here(p));
        let together: Vec<(&HostSource, &Profile)> =
            ctxs.iter().filter(|c| plain(c)).filter_map(|c| Some((c.host_source()?, c.profile()))).collect();
        let mut answers = HostSource::fetch_many(&together, pmids).into_iter();
        drop(together);
        let mut out = Vec::with_capacity(ctxs.len());
        for c in ctxs.iter_mut() {
            if plain(c) {
                out.push(answers.next().unwrap_or(Err(PmError::PM_ERR_IPC)).map(|(r, _)| r));
            } else {
                out.push(c.fetch(pmids));
            }
        }
        out
    }

    /// `pmFetch` with pmcd's state-change bits (`PMCD_ADD_AGENT`,
    /// `PMCD_RESTART_AGENT`, `PMCD_DROP_AGENT`, `PMCD_LABEL_CHANGE`,
    /// `PMCD_NAMES_CHANGE`), which are what pmFetch returns when it
    /// succeeds; 0 for other contexts.
    #[doc(alias = "pmFetch")]
    pub fn fetch_changes(&mut self, pmids: &[PmId]) -> PmResult<(FetchResult, i32)> {
        if let Some(h) = self.host_source() {
            let r = h.fetch(pmids, self.profile());
            if self.trace().any() {
                self.trace_host_fetch(r.as_ref().map(|(r, _)| r).map_err(|e| *e));
            }
            return r;
        }
        self.fetch(pmids).map(|r| (r, 0))
    }

    /// `pmLookupDescs`: descriptors one-to-one with `pmids` (`PM_ID_NULL`
    /// as the `pmid` of those not found) and how many were found; one
    /// metric that is not found is its error (pmLookupDescs(3)). The
    /// context's derived metrics are described (and bound) as by
    /// [`Context::lookup_desc`]; a host context asks pmcd about the rest.
    #[doc(alias = "pmLookupDescs")]
    pub fn lookup_descs(&self, pmids: &[PmId]) -> PmResult<(Vec<Desc>, usize)> {
        if let Some(h) = self.host_source() {
            let derived = |pmid: PmId| self.is_derived_here(pmid);
            if let [pmid] = *pmids {
                if derived(pmid) {
                    return self.lookup_desc(pmid).map(|d| (vec![d], 1));
                }
            }
            // pmcd describes none of them (libpcp's __dmdesc does)
            let (mut descs, mut found) = h.lookup_descs(pmids)?;
            for (d, &pmid) in descs.iter_mut().zip(pmids) {
                if let Some(Ok(desc)) = derived(pmid).then(|| self.lookup_desc(pmid)) {
                    *d = desc;
                    found += 1;
                }
            }
            return Ok((descs, found));
        }
        if pmids.is_empty() {
            return Err(PmError::PM_ERR_TOOSMALL);
        }
        let mut found = 0;
        let mut descs = Vec::with_capacity(pmids.len());
        for &pmid in pmids {
            match self.lookup_desc(pmid) {
                Ok(d) => {
                    found += 1;
                    descs.push(d);
                }
                Err(e) if pmids.len() == 1 => return Err(e),
                Err(_) => descs.push(Desc {
                    pmid: PmId::NULL,
                    ty: MetricType(0),
                    indom: InDom(0),
                    sem: Semantics(0),
                    units: pcp_core::Units::NONE,
                }),
            }
        }
        Ok((descs, found))
    }

    /// The `$TZ` value `pmNewContextZone` sets up for the context's own
    /// time zone: for a host context `pmcd.zoneinfo` if pmcd has it,
    /// else `pmcd.timezone` (`PM_ERR_VALUE` when neither has a value);
    /// for an archive its label's. For a host, traced as libpcp traces
    /// its look at the current context, `pmLookupName` and `pmFetch`.
    #[doc(alias = "pmNewContextZone")]
    pub fn zone_spec(&mut self) -> PmResult<String> {
        if let Some(a) = self.archive_source() {
            return Ok(c_string(&a.label().timezone));
        }
        self.host_source().ok_or(PmError::PM_ERR_NOCONTEXT)?;
        self.trace_which(1);
        let (ids, _) = self.lookup_names(&["pmcd.timezone", "pmcd.zoneinfo"]).map_err(|e| e.code())?;
        let r = self.fetch(&ids)?;
        let text = |i: usize| match r.sets.get(i).map(|s| s.values.as_deref()) {
            Some(Ok([v])) => match &v.value {
                Value::Block(b) => Some(c_string(&b.data)),
                Value::Insitu(_) => None,
            },
            _ => None,
        };
        text(1).or_else(|| text(0)).ok_or(PmError::PM_ERR_VALUE)
    }

    /// libpcp's PDU counters for this context (all zero but for host
    /// contexts).
    pub fn pdu_counts(&self) -> PduCounts {
        self.host_source().map(HostSource::pdu_counts).unwrap_or_default()
    }
}

/// libpcp's `-Dcontext` trace of `pmNewContext` making a host context
/// over `spec` (a tool's first: handle 0), connected on descriptor `fd`,
/// and its dump of the new context (`__pmDumpContext`); or of its
/// failure.
#[cold]
fn trace_new_host_context(trace: &Trace, spec: &str, fd: Result<i32, PmError>) {
    let fd = match fd {
        Ok(fd) => fd,
        Err(e) => {
            trace.write(format_args!("pmNewContext(1, {spec}) -> {}, curr_handle=-1\n", e.code()));
            return;
        }
    };
    let host = HostSpec::parse(spec).map(|s| spec::traced_host_name(&s)).unwrap_or_default();
    trace.write(format_args!(
        "pmNewContext(1, {spec}) -> 0\nDump Contexts: current -> contexts[0] handle 0\n\
         contexts[0] handle 0: host {host}: pmcd=CONNECTED profile=NOT_SENT fd={fd} \
         origin=0.000000000 delta=0.000000000\nDump Instance Profile state=INCLUDE, 0 profiles\n"
    ));
}
