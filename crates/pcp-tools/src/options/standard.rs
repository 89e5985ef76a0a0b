//! The standard options `pmGetOptions` handles itself, by letter or by
//! long name (`-D`, `-g`, `-p`, `-L`, `-n`, `-N`, `-K`, `-s`, `-t`, `-Z`,
//! `-z`, `-V`, `--derived`, and the sources `-a`, `-h`, `-H`, which
//! [`super::sources`] adds), and `pmSetDebug`'s check of `-D`
//! specifications.

use super::{strtol_int, ApiVersion, Hooks, Options, PCP_VERSION};
use pcp::debug::DebugOptions;
use pcp::timeparse;

/// `pmSetDebug`'s syntax check: comma-separated option names, `all`, or
/// numbers (old-style bit masks).
#[doc(alias = "pmSetDebug")]
pub fn valid_debug_spec(spec: &[u8]) -> bool {
    DebugOptions::parse(spec).is_ok()
}

impl Options {
    pub(super) fn set_debug(&mut self, arg: &[u8], hooks: &mut dyn Hooks) {
        if self.debug_options.set(arg).is_ok() {
            self.debug.push(arg.to_vec());
            hooks.set_debug(self.debug_options);
            self.trace = hooks.trace();
        } else {
            let p = self.prog.clone();
            self.msg_bytes(&[p.as_bytes(), b": unrecognized debug options specification (", arg, b")\n"]);
            self.errors += 1;
        }
    }

    pub(super) fn set_guimode(&mut self) {
        if self.guiport_arg.is_some() {
            let m = format!("{}: at most one of -g and -p allowed\n", self.prog);
            self.error(&m);
        } else {
            self.guimode = true;
        }
    }

    pub(super) fn set_guiport(&mut self, arg: &[u8]) {
        if self.guimode {
            let m = format!("{}: at most one of -g and -p allowed\n", self.prog);
            self.error(&m);
        } else {
            self.guiport_arg = Some(arg.to_vec());
            let (n, whole) = strtol_int(arg);
            self.guiport = if !whole || n < 0 { 0 } else { n };
        }
    }

    pub(super) fn set_namespace(&mut self, arg: &[u8], dupok: bool, hooks: &mut dyn Hooks) {
        let loaded = hooks.load_namespace(arg, dupok);
        let (direct, flushed) = hooks.take_output();
        self.flushed.extend_from_slice(&direct);
        if !flushed.is_empty() {
            pcp::config::trace_flush(&self.trace);
            self.flushed.extend_from_slice(&self.trace.take());
            self.flushed.append(&mut self.messages);
            self.flushed.extend_from_slice(&flushed);
        }
        match loaded {
            Ok(()) => self.namespace_loaded = true,
            Err(e) => {
                let p = self.prog.clone();
                self.msg_bytes(&[p.as_bytes(), b": Cannot load namespace from \"", arg, b"\": ", e.as_bytes(), b"\n"]);
                self.errors += 1;
                self.runtime_error = true;
            }
        }
    }

    /// `pmLoadDerivedConfig` of `arg` now: libpcp pmflushes each of
    /// loading's reports (with all that is waiting).
    pub(super) fn load_derived(&mut self, arg: &[u8], hooks: &mut dyn Hooks) -> Result<(), String> {
        let loaded = hooks.load_derived(arg);
        let (report, _) = hooks.take_output();
        if !report.is_empty() {
            self.flushed.append(&mut self.messages);
            self.flushed.extend_from_slice(&report);
        }
        loaded
    }

    pub(super) fn set_samples(&mut self, arg: &[u8]) {
        let (n, whole) = strtol_int(arg);
        self.samples = n;
        if !whole || n < 0 {
            let m = format!("{}: -s requires a positive numeric argument\n", self.prog);
            self.error(&m);
        }
    }

    pub(super) fn set_interval(&mut self, arg: &[u8]) {
        let (parsed, name) = match self.version {
            ApiVersion::V3 => (timeparse::parse_high_res_interval(arg), "pmParseHighResInterval"),
            ApiVersion::V2 => (timeparse::parse_interval(arg), "pmParseInterval"),
        };
        match parsed {
            Ok(t) => self.interval = t,
            Err(e) => {
                let m = format!("{}: -t argument not in {name}(3) format:\n", self.prog);
                self.msg(&m);
                self.msg_bytes(&[e.as_bytes(), b"\n"]);
                self.errors += 1;
            }
        }
    }

    pub(super) fn set_timezone(&mut self, arg: &[u8]) {
        if self.hostzone {
            let m = format!("{}: at most one of -Z and -z allowed\n", self.prog);
            self.error(&m);
        } else {
            self.timezone = Some(arg.to_vec());
        }
    }

    pub(super) fn set_hostzone(&mut self) {
        if self.timezone.is_some() {
            let m = format!("{}: at most one of -Z and -z allowed\n", self.prog);
            self.error(&m);
        } else {
            self.hostzone = true;
        }
    }

    fn set_version(&mut self) {
        self.exit = true;
        let m = format!("{} version {PCP_VERSION}\n", self.prog);
        self.msg(&m);
    }

    /// A standard option given by its long name (`__pmGetLongOptions`);
    /// `false` if the name is not a standard one.
    pub(super) fn long_option(&mut self, name: &str, arg: &[u8], hooks: &mut dyn Hooks) -> bool {
        match name {
            "align" => self.align_arg = Some(arg.to_vec()),
            "archive" => self.add_archive(arg),
            "archive-list" => self.add_archive_list(arg),
            "archive-folio" => self.add_archive_folio(arg, hooks),
            "container" => self.container = Some(arg.to_vec()),
            "debug" => self.set_debug(arg, hooks),
            "derived" => {
                if let Err(e) = self.load_derived(arg, hooks) {
                    let m = format!("{}: pmLoadDerivedConfig failed: {e}\n", self.prog);
                    self.error(&m);
                }
            }
            "guimode" => self.set_guimode(),
            "host" => self.add_host(arg),
            "hostsfile" => self.add_host_file(arg, hooks),
            "spec-local" => self.spec_local(arg, hooks),
            "local-PMDA" => self.set_local(),
            "namespace" => self.set_namespace(arg, true, hooks),
            "uniqnames" => self.set_namespace(arg, false, hooks),
            "guiport" => self.set_guiport(arg),
            "host-list" => self.add_host_list(arg),
            "interval" => self.set_interval(arg),
            "origin" => self.origin_arg = Some(arg.to_vec()),
            "samples" => {
                self.samples_arg = Some(arg.to_vec());
                self.set_samples(arg);
            }
            "start" => self.start_arg = Some(arg.to_vec()),
            "finish" => self.finish_arg = Some(arg.to_vec()),
            "timezone" => self.set_timezone(arg),
            "hostzone" => self.set_hostzone(),
            "version" => self.set_version(),
            _ => return false,
        }
        true
    }

    pub(super) fn spec_local(&mut self, arg: &[u8], hooks: &mut dyn Hooks) {
        let applied = hooks.spec_local(arg);
        let (traced, _) = hooks.take_output();
        self.flushed.extend_from_slice(&traced);
        if let Err(e) = applied {
            let m = format!("{}: pmSpecLocalPMDA failed: {e}\n", self.prog);
            self.error(&m);
        }
    }

    /// A standard short option (`pmGetOptions`' switch); `false` if `c`
    /// is not one.
    pub(super) fn short_option(&mut self, c: u8, arg: &[u8], hooks: &mut dyn Hooks) -> bool {
        match c {
            b'A' => self.align_arg = Some(arg.to_vec()),
            b'a' => self.add_archive(arg),
            b'D' => self.set_debug(arg, hooks),
            b'g' => self.set_guimode(),
            b'H' => self.add_host_file(arg, hooks),
            b'h' => self.add_host(arg),
            b'K' => self.spec_local(arg, hooks),
            b'L' => self.set_local(),
            b'N' => self.set_namespace(arg, false, hooks),
            b'n' => self.set_namespace(arg, true, hooks),
            b'O' => self.origin_arg = Some(arg.to_vec()),
            b'p' => self.set_guiport(arg),
            b'S' => self.start_arg = Some(arg.to_vec()),
            b's' => {
                self.samples_arg = Some(arg.to_vec());
                self.set_samples(arg);
            }
            b'T' => self.finish_arg = Some(arg.to_vec()),
            b't' => self.set_interval(arg),
            b'V' => self.set_version(),
            b'Z' => self.set_timezone(arg),
            b'z' => self.set_hostzone(),
            b'?' => self.errors += 1,
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_specifications() {
        for good in ["pdu", "PDU,fetch", "all", "3", "-1", "5,", "tls,appl9", ""] {
            assert!(valid_debug_spec(good.as_bytes()), "{good}");
        }
        for bad in ["junk", "5x", ",pdu", "pdu,,fetch", "-", "al"] {
            assert!(!valid_debug_spec(bad.as_bytes()), "{bad}");
        }
    }
}
