//! libpcp's debug options (`pmDebugOptions`, set by `-D` and
//! `$PCP_DEBUG`) and the trace they turn on.
//!
//! libpcp keeps its debug options in a process-wide structure and writes
//! its trace straight to standard error. Here the options are a value
//! ([`DebugOptions`]) given to whatever should trace, and the trace goes
//! to a [`Trace`]: a shared buffer that the caller drains when it likes
//! (the command-line tools write it to standard error after each call, so
//! that it lands where libpcp's would).
//!
//! ```
//! use pcp_core::debug::{DebugFlag, DebugOptions, Trace};
//!
//! let opts = DebugOptions::parse(b"derive,appl0").unwrap();
//! assert!(opts.contains(DebugFlag::Derive) && !opts.contains(DebugFlag::Pdu));
//! assert_eq!(opts.to_string(), "appl0,derive");
//! assert!(DebugOptions::parse(b"derive,nonsense").is_err());
//!
//! let trace = Trace::new(opts);
//! if trace.on(DebugFlag::Derive) {
//!     trace.write(format_args!("pmRegisterDerived: name=\"{}\"\n", "m"));
//! }
//! assert_eq!(trace.take(), b"pmRegisterDerived: name=\"m\"\n");
//! ```

use crate::time::LocalTime;
use crate::PmError;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

macro_rules! flags {
    ($($variant:ident = $name:literal, $bit:expr;)*) => {
        /// One of libpcp's debug options, in `pmdebugoptions_t`'s order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[doc(alias = "pmdebugoptions_t")]
        pub enum DebugFlag {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl DebugFlag {
            /// Every option, in libpcp's order.
            pub const ALL: &'static [DebugFlag] = &[$(DebugFlag::$variant),*];

            /// The option's name, as `-D` takes it.
            pub fn name(self) -> &'static str {
                match self {
                    $(DebugFlag::$variant => $name,)*
                }
            }

            /// The bit of the old numeric form (`DBG_TRACE_*`), if the
            /// option has one.
            fn old_bit(self) -> u32 {
                match self {
                    $(DebugFlag::$variant => $bit,)*
                }
            }
        }
    };
}

flags! {
    Pdu = "pdu", 1 << 0;
    Fetch = "fetch", 1 << 1;
    Profile = "profile", 1 << 2;
    Value = "value", 1 << 3;
    Context = "context", 1 << 4;
    Indom = "indom", 1 << 5;
    PduBuf = "pdubuf", 1 << 6;
    Log = "log", 1 << 7;
    LogMeta = "logmeta", 1 << 8;
    OptFetch = "optfetch", 1 << 9;
    Af = "af", 1 << 10;
    Appl0 = "appl0", 1 << 11;
    Appl1 = "appl1", 1 << 12;
    Appl2 = "appl2", 1 << 13;
    Pmns = "pmns", 1 << 14;
    LibPmda = "libpmda", 1 << 15;
    TimeControl = "timecontrol", 1 << 16;
    Pmc = "pmc", 1 << 17;
    Derive = "derive", 1 << 18;
    Lock = "lock", 1 << 19;
    Interp = "interp", 1 << 20;
    Config = "config", 1 << 21;
    Pmapi = "pmapi", 1 << 22;
    Fault = "fault", 1 << 23;
    Auth = "auth", 1 << 24;
    Discovery = "discovery", 1 << 25;
    Attr = "attr", 1 << 26;
    Http = "http", 1 << 27;
    Desperate = "desperate", 1 << 30;
    Deprecated = "deprecated", 0;
    Exec = "exec", 0;
    Labels = "labels", 0;
    Series = "series", 0;
    LibWeb = "libweb", 0;
    Alloc = "alloc", 0;
    Services = "services", 0;
    Appl3 = "appl3", 0;
    Appl4 = "appl4", 0;
    Appl5 = "appl5", 0;
    Access = "access", 0;
    Qa = "qa", 0;
    Search = "search", 0;
    Query = "query", 0;
    Compress = "compress", 0;
    Dev0 = "dev0", 0;
    Dev1 = "dev1", 0;
    Dev2 = "dev2", 0;
    Pmlc = "pmlc", 0;
    Appl6 = "appl6", 0;
    Appl7 = "appl7", 0;
    Appl8 = "appl8", 0;
    Appl9 = "appl9", 0;
    Tls = "tls", 0;
}

impl DebugFlag {
    /// The option named `name` (case ignored), if there is one.
    pub fn from_name(name: &[u8]) -> Option<DebugFlag> {
        DebugFlag::ALL.iter().copied().find(|f| f.name().as_bytes().eq_ignore_ascii_case(name))
    }

    fn mask(self) -> u64 {
        1 << (self as u32)
    }
}

impl fmt::Display for DebugFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of debug options (`pmDebugOptions`).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[doc(alias = "pmDebugOptions")]
pub struct DebugOptions(u64);

impl DebugOptions {
    /// No option set.
    pub const NONE: DebugOptions = DebugOptions(0);

    /// The options of `spec` as `pmSetDebug` reads it: names separated by
    /// commas (case ignored), `all`, or numbers in the old bit-mask form
    /// (`-1` for every bit). `PM_ERR_CONV` for anything else.
    #[doc(alias = "pmSetDebug")]
    pub fn parse(spec: &[u8]) -> Result<DebugOptions, PmError> {
        let mut opts = DebugOptions::NONE;
        opts.set(spec)?;
        Ok(opts)
    }

    /// Add the options of `spec` ([`DebugOptions::parse`]'s form) to
    /// these; on an error none is added.
    #[doc(alias = "pmSetDebug")]
    pub fn set(&mut self, spec: &[u8]) -> Result<(), PmError> {
        let mut new = *self;
        let mut bits: u32 = 0;
        let mut rest = spec;
        while !rest.is_empty() {
            if let Some((n, used)) = leading_number(rest) {
                bits |= if n == -1 { i32::MAX as u32 } else { n as u32 };
                for &f in DebugFlag::ALL {
                    if bits & f.old_bit() != 0 {
                        new.0 |= f.mask();
                    }
                }
                match rest.get(used) {
                    None => break,
                    Some(b',') => {
                        rest = &rest[used + 1..];
                        continue;
                    }
                    Some(_) => return Err(PmError::PM_ERR_CONV),
                }
            }
            let end = rest.iter().position(|&b| b == b',').unwrap_or(rest.len());
            let item = &rest[..end];
            if item.eq_ignore_ascii_case(b"all") {
                for &f in DebugFlag::ALL {
                    new.0 |= f.mask();
                }
            } else {
                let f = DebugFlag::from_name(item).ok_or(PmError::PM_ERR_CONV)?;
                bits |= f.old_bit();
                new.0 |= f.mask();
            }
            rest = rest.get(end + 1..).unwrap_or_default();
        }
        *self = new;
        Ok(())
    }

    /// Whether `flag` is set.
    pub fn contains(self, flag: DebugFlag) -> bool {
        self.0 & flag.mask() != 0
    }

    /// These options and `flag`.
    #[must_use]
    pub fn with(self, flag: DebugFlag) -> DebugOptions {
        DebugOptions(self.0 | flag.mask())
    }

    /// Whether no option is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The options set, in libpcp's order.
    pub fn iter(self) -> impl Iterator<Item = DebugFlag> {
        DebugFlag::ALL.iter().copied().filter(move |&f| self.contains(f))
    }
}

/// A number as C's `strtol` reads it at the start of `s` (white space, a
/// sign, decimal digits), truncated to an `int`, and how many bytes it
/// took; `None` if there are no digits.
fn leading_number(s: &[u8]) -> Option<(i32, usize)> {
    let ws = s.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')).count();
    let neg = s.get(ws) == Some(&b'-');
    let sign = usize::from(matches!(s.get(ws), Some(b'-' | b'+')));
    let digits = s[ws + sign..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in &s[ws + sign..ws + sign + digits] {
        v = v.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    let v = if neg { -v } else { v };
    Some((v as i32, ws + sign + digits))
}

/// `pmGetDebug`'s form: the names set, separated by commas, or `all`.
impl fmt::Display for DebugOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if DebugFlag::ALL.iter().all(|&fl| self.contains(fl)) {
            return f.write_str("all");
        }
        for (i, fl) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(fl.name())?;
        }
        Ok(())
    }
}

impl fmt::Debug for DebugOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DebugOptions({self})")
    }
}

/// Where trace output goes: the debug options, and a buffer shared by
/// every clone, drained with [`Trace::take`]. Cloning is cheap; a context
/// hands clones to the parts that trace (archive reader, pmcd
/// connection, derived metrics).
#[derive(Clone, Default)]
pub struct Trace {
    opts: DebugOptions,
    shared: Arc<Shared>,
}

/// What every clone of a [`Trace`] shares: the buffer, and the time zone
/// its times are shown in.
#[derive(Default)]
struct Shared {
    buf: Mutex<Vec<u8>>,
    zone: Mutex<Option<TraceZone>>,
    /// What [`Trace::changed`] last saw, by key.
    marks: Mutex<Vec<(&'static str, i64)>>,
    /// How configuration variables are looked up ([`Trace::set_config_lookup`]).
    config: Mutex<Option<ConfigLookup>>,
    /// Results read whose dump is still to be written, each with where
    /// in the buffer it goes ([`Trace::defer_result`]).
    results: Mutex<Vec<Deferred>>,
}

/// A result kept to be dumped: where in the buffer, and its metrics
/// held as in static blocks.
type Deferred = (usize, crate::FetchResult, Vec<crate::PmId>);

/// `pmGetOptionalConfig`'s `-Dconfig` trace of looking a PCP configuration
/// variable up, by the crate that reads `pcp.conf` (`pcp::config`): what
/// it would write into `trace` (the file's settings first, at the
/// family's first look-up), returned so that the caller places it among
/// its own lines.
pub type ConfigLookup = fn(name: &str, trace: &Trace) -> Vec<u8>;

/// A time zone a trace shows times in.
pub type TraceZone = Arc<dyn LocalTime + Send + Sync>;

impl Trace {
    /// A trace of `opts`, with an empty buffer of its own.
    pub fn new(opts: DebugOptions) -> Trace {
        Trace { opts, shared: Arc::default() }
    }

    /// A trace that records nothing.
    pub fn off() -> Trace {
        Trace::default()
    }

    /// A trace of `opts` writing to this one's buffer.
    pub fn with_options(&self, opts: DebugOptions) -> Trace {
        Trace { opts, shared: Arc::clone(&self.shared) }
    }

    /// The debug options.
    pub fn options(&self) -> DebugOptions {
        self.opts
    }

    /// Whether `flag` is set.
    #[inline]
    pub fn on(&self, flag: DebugFlag) -> bool {
        self.opts.contains(flag)
    }

    /// Whether any option is set.
    #[inline]
    pub fn any(&self) -> bool {
        !self.opts.is_empty()
    }

    /// Add formatted text to the buffer.
    pub fn write(&self, args: fmt::Arguments<'_>) {
        use std::io::Write;
        let _ = self.lock().write_fmt(args);
    }

    /// Add bytes to the buffer.
    pub fn write_bytes(&self, bytes: &[u8]) {
        self.lock().extend_from_slice(bytes);
    }

    /// Take what has been written since last asked (the place of a
    /// result dump not filled in goes with it, the dump left out).
    pub fn take(&self) -> Vec<u8> {
        let mut buf = self.lock();
        self.pending().clear();
        std::mem::take(&mut *buf)
    }

    /// Keep `result` to be dumped here, where the trace has got to, by
    /// whoever knows its metrics' names and its instances' names
    /// ([`Trace::fill_results`]): an archive reader reads a record, under
    /// `-Dpdu`, where libpcp's decoding dumps it. `sptr`: the metrics
    /// whose values the record holds as in static blocks (valfmt 2).
    pub fn defer_result(&self, result: crate::FetchResult, sptr: Vec<crate::PmId>) {
        let at = self.lock().len();
        self.pending().push((at, result, sptr));
    }

    /// Whether results wait to be dumped ([`Trace::defer_result`]).
    pub fn has_deferred(&self) -> bool {
        !self.pending().is_empty()
    }

    /// Write the dumps of the results kept by [`Trace::defer_result`]
    /// where they go, in the words `dump` finds for each (it may write to
    /// the trace: what it writes follows).
    pub fn fill_results(&self, mut dump: impl FnMut(&crate::FetchResult, &[crate::PmId]) -> Vec<u8>) {
        let kept = std::mem::take(&mut *self.pending());
        if kept.is_empty() {
            return;
        }
        let texts: Vec<(usize, Vec<u8>)> = kept.iter().map(|(at, r, sptr)| (*at, dump(r, sptr))).collect();
        let mut buf = self.lock();
        for (at, text) in texts.into_iter().rev() {
            let at = at.min(buf.len());
            buf.splice(at..at, text);
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Vec<Deferred>> {
        self.shared.results.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `other` writes to the same buffer.
    pub fn shares_buffer(&self, other: &Trace) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Show times in `zone` from now on (in this trace and every clone),
    /// as libpcp shows them in the current zone: the process's until a
    /// tool picks another (`-z`, `-Z`).
    #[doc(alias = "pmNewZone")]
    pub fn set_zone(&self, zone: TraceZone) {
        *self.shared.zone.lock().unwrap_or_else(PoisonError::into_inner) = Some(zone);
    }

    /// The zone set with [`Trace::set_zone`], if one was.
    pub fn zone(&self) -> Option<TraceZone> {
        self.shared.zone.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Make configuration look-ups through `lookup` from now on (in this
    /// trace and every clone): so that crates below the one that reads
    /// `pcp.conf` trace the look-ups libpcp makes in their parts (an
    /// archive volume decompressed to a temporary file looks up
    /// `PCP_TMPFILE_DIR`).
    pub fn set_config_lookup(&self, lookup: ConfigLookup) {
        *self.shared.config.lock().unwrap_or_else(PoisonError::into_inner) = Some(lookup);
    }

    /// The `-Dconfig` trace of looking `name` up with
    /// `pmGetOptionalConfig` (nothing unless `-Dconfig` is on and a
    /// look-up was set with [`Trace::set_config_lookup`]). The value is
    /// not returned: the look-ups made this way are the ones whose trace
    /// alone matters here.
    #[doc(alias = "pmGetOptionalConfig")]
    pub fn config_lookup_trace(&self, name: &str) -> Vec<u8> {
        if !self.on(DebugFlag::Config) {
            return Vec::new();
        }
        let lookup = *self.shared.config.lock().unwrap_or_else(PoisonError::into_inner);
        lookup.map(|f| f(name, self)).unwrap_or_default()
    }

    /// The time of day at `sec` seconds since the epoch in the trace's
    /// zone (UTC until one is set), as `__pmPrintTimestamp` shows it.
    pub fn hms(&self, sec: i64) -> Option<(u32, u32, u32)> {
        match &*self.shared.zone.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(zone) => zone.hms(sec),
            None => crate::time::Utc.hms(sec),
        }
    }

    /// Whether `value` differs from the one last noted for `key` (in this
    /// trace or any clone; none noted at first), noting it: what libpcp
    /// keeps in a static to trace a state only when it changes (the name
    /// space's location) or once (the default name space's load).
    pub fn changed(&self, key: &'static str, value: i64) -> bool {
        let mut marks = self.shared.marks.lock().unwrap_or_else(PoisonError::into_inner);
        match marks.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) if *v == value => false,
            Some((_, v)) => {
                *v = value;
                true
            }
            None => {
                marks.push((key, value));
                true
            }
        }
    }

    /// The value last noted for `key` (in this trace or any clone) by
    /// [`Trace::changed`], if any.
    pub fn noted(&self, key: &'static str) -> Option<i64> {
        let marks = self.shared.marks.lock().unwrap_or_else(PoisonError::into_inner);
        marks.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// Clear `clear` then set `set` in the bits noted for `key` (in this
    /// trace or any clone; none at first) and return them all: a small
    /// set libpcp keeps for the process (the descriptors in its IPC
    /// table).
    pub fn update_bits(&self, key: &'static str, clear: u64, set: u64) -> u64 {
        let mut marks = self.shared.marks.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = match marks.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                marks.push((key, 0));
                marks.len() - 1
            }
        };
        let bits = (marks[slot].1 as u64 & !clear) | set;
        marks[slot].1 = bits as i64;
        bits
    }

    /// Record in libpcp's IPC table (process state, shared by every
    /// clone) that descriptor `fd` speaks PDU version 2 and, if `socket`,
    /// is a socket; return the table as `__pmPrintIPC` writes it
    /// (`IPC table fd(PDU version): 3(2,1)`, with its newline).
    #[doc(alias = "__pmSetVersionIPC")]
    pub fn ipc_set(&self, fd: i32, version: bool, socket: bool) -> String {
        let bit = u32::try_from(fd).ok().and_then(|f| 1u64.checked_shl(f)).unwrap_or(0);
        self.update_bits(IPC_VERSIONS, 0, if version { bit } else { 0 });
        self.update_bits(IPC_SOCKETS, 0, if socket { bit } else { 0 });
        self.ipc_table()
    }

    /// Forget descriptor `fd` in the IPC table (closed: `__pmResetIPC`),
    /// or every descriptor for `None`.
    pub fn ipc_forget(&self, fd: Option<i32>) {
        let bits = match fd {
            Some(fd) => u32::try_from(fd).ok().and_then(|f| 1u64.checked_shl(f)).unwrap_or(0),
            None => !0,
        };
        self.update_bits(IPC_VERSIONS, bits, 0);
        self.update_bits(IPC_SOCKETS, bits, 0);
    }

    /// The IPC table as `__pmPrintIPC` writes it: each descriptor with a
    /// known version, its version and whether it is a socket.
    pub fn ipc_table(&self) -> String {
        let versions = self.update_bits(IPC_VERSIONS, 0, 0);
        let sockets = self.update_bits(IPC_SOCKETS, 0, 0);
        let mut s = String::from("IPC table fd(PDU version):");
        for i in (0..64).filter(|i| versions & (1 << i) != 0) {
            s.push_str(&format!(" {i}(2,{})", u8::from(sockets & (1 << i) != 0)));
        }
        s.push('\n');
        s
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.shared.buf.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The keys of libpcp's IPC table in a trace's notes: the descriptors
/// with a PDU version, and those that are sockets.
const IPC_VERSIONS: &str = "ipc table";
const IPC_SOCKETS: &str = "ipc sockets";

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace").field("opts", &self.opts).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_all_and_numbers() {
        let o = DebugOptions::parse(b"DERIVE,appl2").unwrap();
        assert_eq!(o.iter().collect::<Vec<_>>(), [DebugFlag::Appl2, DebugFlag::Derive]);
        assert_eq!(DebugOptions::parse(b"all").unwrap().to_string(), "all");
        // old bit masks: 1 is pdu, 2 fetch; -1 every old bit
        assert_eq!(DebugOptions::parse(b"3").unwrap().to_string(), "pdu,fetch");
        let every = DebugOptions::parse(b"-1").unwrap();
        assert!(every.contains(DebugFlag::Desperate) && every.contains(DebugFlag::Http));
        assert!(!every.contains(DebugFlag::Tls));
        assert_eq!(DebugOptions::parse(b"").unwrap(), DebugOptions::NONE);
        assert!(DebugOptions::parse(b"derive,").is_ok());
        for bad in [&b"foo"[..], b"1x", b"pdu,,fetch"] {
            assert_eq!(DebugOptions::parse(bad), Err(PmError::PM_ERR_CONV), "{bad:?}");
        }
    }

    #[test]
    fn set_is_additive_and_atomic() {
        let mut o = DebugOptions::parse(b"pdu").unwrap();
        o.set(b"fetch").unwrap();
        assert!(o.set(b"log,bogus").is_err());
        assert_eq!(o.to_string(), "pdu,fetch");
    }

    #[test]
    fn changes_are_noted_across_clones() {
        let t = Trace::new(DebugOptions::parse(b"pmns").unwrap());
        let u = t.clone();
        assert!(t.changed("loc", 1));
        assert!(!u.changed("loc", 1));
        assert!(u.changed("loc", 2));
        assert_eq!(t.noted("loc"), Some(2));
        assert_eq!(t.noted("elsewhere"), None);
        assert!(t.changed("other", 2));
        assert!(!t.changed("loc", 2));
        assert_eq!(t.update_bits("fds", 0, 8), 8);
        assert_eq!(u.update_bits("fds", 0, 32), 40);
        assert_eq!(u.update_bits("fds", 8, 2), 34);
        assert_eq!(t.ipc_set(3, false, true), "IPC table fd(PDU version):\n");
        assert_eq!(u.ipc_set(3, true, false), "IPC table fd(PDU version): 3(2,1)\n");
        assert_eq!(t.ipc_set(5, true, false), "IPC table fd(PDU version): 3(2,1) 5(2,0)\n");
        t.ipc_forget(Some(3));
        assert_eq!(u.ipc_table(), "IPC table fd(PDU version): 5(2,0)\n");
    }

    #[test]
    fn deferred_results_are_dumped_where_they_were_read() {
        let t = Trace::new(DebugOptions::parse(b"pdu").unwrap());
        let u = t.clone();
        t.write_bytes(b"a ");
        u.defer_result(
            crate::FetchResult { timestamp: crate::Timestamp { sec: 1, nsec: 0 }, sets: Vec::new() },
            Vec::new(),
        );
        t.write_bytes(b"b ");
        u.defer_result(crate::FetchResult::default(), vec![crate::PmId(7)]);
        t.write_bytes(b"c");
        assert!(t.has_deferred());
        t.fill_results(|r, sptr| {
            u.write_bytes(b" d");
            format!("<{}{}> ", r.timestamp.sec, sptr.len()).into_bytes()
        });
        assert!(!u.has_deferred());
        assert_eq!(t.take(), b"a <10> b <01> c d d");
        u.defer_result(crate::FetchResult::default(), Vec::new());
        assert!(t.take().is_empty() && !t.has_deferred());
    }

    #[test]
    fn trace_buffers_are_shared_by_clones() {
        let t = Trace::new(DebugOptions::parse(b"log").unwrap());
        let u = t.clone();
        u.write_bytes(b"a");
        t.write(format_args!("{}", 1));
        assert!(t.shares_buffer(&u) && !t.shares_buffer(&Trace::off()));
        assert_eq!(u.take(), b"a1");
        assert!(t.take().is_empty());
    }

    #[test]
    fn config_lookups_go_through_the_lookup_set_on_any_clone() {
        fn fake(name: &str, trace: &Trace) -> Vec<u8> {
            format!("{name} {}\n", trace.on(DebugFlag::Config)).into_bytes()
        }
        let t = Trace::new(DebugOptions::parse(b"config").unwrap());
        let u = t.clone();
        assert!(u.config_lookup_trace("PCP_TMPFILE_DIR").is_empty());
        t.set_config_lookup(fake);
        assert_eq!(u.config_lookup_trace("PCP_TMPFILE_DIR"), b"PCP_TMPFILE_DIR true\n");
        // returned, not written
        assert!(t.take().is_empty());
        // nothing without -Dconfig
        assert!(t.with_options(DebugOptions::parse(b"log").unwrap()).config_lookup_trace("X").is_empty());
    }

    #[test]
    fn clones_show_times_in_the_zone_last_set() {
        struct East(i64);
        impl LocalTime for East {
            fn hms(&self, sec: i64) -> Option<(u32, u32, u32)> {
                crate::time::Utc.hms(sec + self.0)
            }
        }
        let t = Trace::new(DebugOptions::parse(b"log").unwrap());
        let u = t.clone();
        assert_eq!(u.hms(3600), Some((1, 0, 0)));
        t.set_zone(Arc::new(East(-5 * 3600)));
        assert_eq!(u.hms(3600), Some((20, 0, 0)));
        assert_eq!(Trace::off().hms(3600), Some((1, 0, 0)));
    }
}
