//! The metrics source the options name: archives (`-a`,
//! `--archive-list`, `--archive-folio`), hosts (`-h`, `--host-list`, `-H`
//! hosts files), the local context (`-L`), and `__pmEndOptions`, which
//! settles the source's kind once all are known.

use super::{ContextKind, Hooks, Options};
use std::io;

impl Options {
    /// Add an archive: a separate entry with several contexts, else one
    /// comma-separated list without duplicates.
    fn add_archive_name(&mut self, arg: &[u8]) {
        if self.flags.multi {
            if !self.archives.iter().any(|a| a == arg) {
                self.archives.push(arg.to_vec());
            }
            return;
        }
        let Some(list) = self.archives.first_mut() else {
            self.archives.push(arg.to_vec());
            return;
        };
        add_to_archive_list(list, arg);
    }

    /// The archive named, when exactly one is and no host.
    pub fn sole_archive(&self) -> Option<&[u8]> {
        match (&self.archives[..], &self.hosts[..]) {
            ([name], []) => Some(name),
            _ => None,
        }
    }

    /// `__pmAddOptArchive`: `-a`.
    #[doc(alias = "__pmAddOptArchive")]
    pub fn add_archive(&mut self, arg: &[u8]) {
        if !self.hosts.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one host or archive allowed\n", self.prog);
            self.error(&m);
        } else {
            self.add_archive_name(arg);
        }
    }

    pub(super) fn add_archive_list(&mut self, arg: &[u8]) {
        if !self.hosts.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
            return;
        }
        if !self.flags.multi {
            self.add_archive(arg);
            return;
        }
        for name in arg.split(|&b| b == b',').filter(|n| !n.is_empty()) {
            self.add_archive(name);
        }
    }

    pub(super) fn add_archive_folio(&mut self, arg: &[u8], hooks: &mut dyn Hooks) {
        // libpcp's dirname() cuts the name in place: later messages show
        // what is left
        let mut shown = arg.to_vec();
        if !self.hosts.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
        } else {
            match read_or_empty(hooks, arg) {
                Err(e) => {
                    let p = self.prog.clone();
                    let e = io_err_text(&e);
                    self.complain(&[p.as_bytes(), b": cannot open archive folio ", arg, b": ", e.as_bytes(), b"\n"]);
                    self.runtime_error = true;
                }
                Ok(text) => {
                    if let Err(m) = self.read_folio(&text, arg, &mut shown) {
                        self.complain(&[&m]);
                        self.runtime_error = true;
                    }
                }
            }
        }
        if self.archives.len() > 1 && !self.flags.multi {
            let p = self.prog.clone();
            self.complain(&[p.as_bytes(), b": too many archives requested: ", &shown, b"\n"]);
        }
    }

    /// The archives of a folio: a `PCPFolio` / `Version: 1` header, then
    /// `Archive: HOST PATH` lines (paths relative to the folio's
    /// directory).
    fn read_folio(&mut self, text: &[u8], folio: &[u8], shown: &mut Vec<u8>) -> Result<(), Vec<u8>> {
        let about = |what: &str| [self.prog.as_bytes(), b": archive folio ", folio, what.as_bytes(), b"\n"].concat();
        let mut lines = text.split_inclusive(|&b| b == b'\n');
        let header = lines.next().ok_or_else(|| about(" has no header"))?;
        if !header.starts_with(b"PCPFolio") {
            return Err(about(" has bad magic"));
        }
        let version = lines.next().ok_or_else(|| about(" has no version"))?;
        if !version.starts_with(b"Version: 1") {
            return Err([self.prog.as_bytes(), b": unknown version archive folio ", folio, b"\n"].concat());
        }
        let dir = match dirname(folio) {
            Some(d) => {
                shown.clone_from(&d);
                d
            }
            None => b".".to_vec(),
        };
        let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        for (n, line) in lines.enumerate() {
            let line_no = n + 3;
            if !line.starts_with(b"Archive:") {
                continue;
            }
            // the keyword, blanks, the host, blanks, the path
            let skip_blanks = |p: usize| p + line[p..].iter().take_while(|b| is_space(b) && **b != b'\n').count();
            let skip_word = |p: usize| p + line[p..].iter().take_while(|b| !is_space(b)).count();
            let mut p = skip_blanks(skip_word(0));
            if line.get(p) == Some(&b'\n') {
                return Err(format!("{}: missing host on archive folio line {line_no}\n", self.prog).into_bytes());
            }
            p = skip_blanks(skip_word(p));
            if line.get(p) == Some(&b'\n') {
                return Err(format!("{}: missing path on archive folio line {line_no}\n", self.prog).into_bytes());
            }
            let path = &line[p..skip_word(p)];
            if path.starts_with(b"/") {
                self.add_archive(path);
            } else {
                let mut full = dir.clone();
                full.push(b'/');
                full.extend_from_slice(path);
                self.add_archive(&full);
            }
        }
        Ok(())
    }

    /// `__pmAddOptHost`: `-h`.
    #[doc(alias = "__pmAddOptHost")]
    pub fn add_host(&mut self, arg: &[u8]) {
        if !self.hosts.is_empty() && !self.flags.multi {
            let p = self.prog.clone();
            self.complain(&[p.as_bytes(), b": too many hosts requested: ", arg, b"\n"]);
        } else if !self.archives.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one host or archive allowed\n", self.prog);
            self.error(&m);
        } else {
            self.hosts.push(arg.to_vec());
        }
    }

    pub(super) fn add_host_list(&mut self, arg: &[u8]) {
        if !self.archives.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
        } else {
            for name in arg.split(|&b| b == b',').filter(|n| !n.is_empty()) {
                self.hosts.push(name.to_vec());
            }
        }
        if self.hosts.len() > 1 && !self.flags.multi {
            let p = self.prog.clone();
            self.complain(&[p.as_bytes(), b": too many hosts requested: ", arg, b"\n"]);
        }
    }

    pub(super) fn add_host_file(&mut self, arg: &[u8], hooks: &mut dyn Hooks) {
        if !self.archives.is_empty() && !self.flags.mixed {
            let m = format!("{}: only one of hosts or archives allowed\n", self.prog);
            self.error(&m);
            return;
        }
        let text = match read_or_empty(hooks, arg) {
            Ok(t) => t,
            Err(e) => {
                let p = self.prog.clone();
                let e = io_err_text(&e);
                self.complain(&[p.as_bytes(), b": cannot open hosts file ", arg, b": ", e.as_bytes(), b"\n"]);
                self.runtime_error = true;
                return;
            }
        };
        let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        for line in text.split_inclusive(|&b| b == b'\n') {
            let start = line.iter().take_while(|b| is_space(b) && **b != b'\n').count();
            let rest = &line[start..];
            if matches!(rest.first(), Some(b'\n' | b'#')) {
                continue;
            }
            if !self.hosts.is_empty() && !self.flags.multi {
                let p = self.prog.clone();
                self.complain(&[p.as_bytes(), b": too many hosts requested: ", arg, b"\n"]);
                break;
            }
            let len = rest.iter().take_while(|b| **b != b'#' && !is_space(b)).count();
            self.hosts.push(rest[..len].to_vec());
        }
    }

    pub(super) fn set_local(&mut self) {
        if self.context.is_some() && !self.flags.multi {
            let m = format!("{}: at most one of -a, -h and -L allowed\n", self.prog);
            self.error(&m);
        } else {
            self.local = true;
        }
    }

    /// `__pmEndOptions`: settle the metrics source's kind and check what
    /// needs one. Tools with [`super::ToolFlags::deferred_end`] call this once
    /// they have added any source taken from their operands; for the
    /// others [`super::Parser`] calls it at the end of the options. Running it
    /// twice does nothing.
    #[doc(alias = "__pmEndOptions")]
    pub fn end_options(&mut self, hooks: &mut dyn Hooks) {
        if self.ended {
            return;
        }
        if self.context.is_none() {
            if self.local {
                self.context = Some(ContextKind::Local);
            } else if !self.hosts.is_empty() && self.archives.is_empty() {
                self.context = Some(ContextKind::Host);
            } else if !self.archives.is_empty() && self.hosts.is_empty() {
                self.context = Some(ContextKind::Archive);
            } else if self.origin_arg.is_some() {
                self.context = Some(ContextKind::Archive);
                let dir = hooks.default_archive();
                self.add_archive_name(&dir);
            }
        }
        let window = self.start_arg.is_some() || self.align_arg.is_some() || self.origin_arg.is_some();
        if window && self.context != Some(ContextKind::Archive) {
            let m = format!("{}: time window options are supported for archives only\n", self.prog);
            self.error(&m);
        }
        if self.hostzone && !matches!(self.context, Some(ContextKind::Archive | ContextKind::Host)) {
            let m = format!("{}: use of timezone from metric source requires a source\n", self.prog);
            self.error(&m);
        }
        if self.errors > 0 && !self.runtime_error {
            self.usage_error = true;
        }
        self.ended = true;
    }
}

/// The text of an I/O error as `strerror` gives it.
fn io_err_text(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => pcp_core::err_str(-n).into_owned(),
        None => e.to_string(),
    }
}

/// What glibc's `dirname(3)` leaves of `path`: `None` when it has no
/// slash (dirname then answers "." and leaves it alone), else the
/// directory, which is also what remains of `path` (it is cut in place).
fn dirname(path: &[u8]) -> Option<Vec<u8>> {
    let mut last = path.iter().rposition(|&b| b == b'/')?;
    if last != 0 && last + 1 == path.len() {
        // trailing slashes: look before them
        let run = path[..last].iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
        if run != 0 {
            last = path[..run].iter().rposition(|&b| b == b'/')?;
        }
    }
    let run = path[..last].iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
    let end = if run == 0 {
        // the slash starts the string: "/", or "//" for exactly two
        if last == 1 {
            2
        } else {
            1
        }
    } else {
        run
    };
    Some(path[..end].to_vec())
}

/// A file's contents; a directory reads as empty (C's `fopen` opens one,
/// then finds nothing in it).
fn read_or_empty(hooks: &mut dyn Hooks, path: &[u8]) -> io::Result<Vec<u8>> {
    match hooks.read_file(path) {
        Err(e) if e.raw_os_error() == Some(21) => Ok(Vec::new()),
        other => other,
    }
}

/// libpcp's `addArchive` for tools with one context: add `arg` to the
/// comma-separated archive list `list`, unless it is there already
/// (libpcp looks only at the first occurrence of the name in the list).
pub fn add_to_archive_list(list: &mut Vec<u8>, arg: &[u8]) {
    if let Some(at) = find(list, arg) {
        let before_ok = at == 0 || list[at - 1] == b',';
        let after = list.get(at + arg.len());
        if before_ok && matches!(after, None | Some(b',')) {
            return;
        }
    }
    list.push(b',');
    list.extend_from_slice(arg);
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::testing::{args, run, text};
    use crate::options::{parse, std_opts, tools, DefaultHooks, LongOpt, ToolFlags, ToolSpec};

    #[test]
    fn origin_alone_means_the_local_archives() {
        struct Here;
        impl Hooks for Here {
            fn default_archive(&mut self) -> Vec<u8> {
                b"/logs/here".to_vec()
            }
        }
        let mut err = Vec::new();
        let o = parse(&args(&["pminfo", "-O", "@10:00"]), tools::PMINFO, &[], &mut Here, &mut err);
        assert_eq!(o.context, Some(ContextKind::Archive));
        assert_eq!(o.archives, args(&["/logs/here"]));
    }

    #[test]
    fn hosts_files_and_folios_through_the_hooks() {
        struct Files;
        impl Hooks for Files {
            fn read_file(&mut self, path: &[u8]) -> io::Result<Vec<u8>> {
                match path {
                    b"hosts" => Ok(b"  # comment\n\nh1 trailing\n".to_vec()),
                    b"dir/folio" => Ok(b"PCPFolio\nVersion: 1\nArchive: host a1\nArchive:  host  /abs/a2\n".to_vec()),
                    b"dir/bad" => Ok(b"PCPFolio\nVersion: 1\nArchive:\n".to_vec()),
                    _ => Err(io::Error::from_raw_os_error(2)),
                }
            }
        }
        const LONG: [LongOpt; 1] = [std_opts::HOSTSFILE];
        let spec = ToolSpec {
            short_options: "H:",
            long_options: &LONG,
            flags: ToolFlags { multi: true, ..tools::PMVAL.flags },
            ..tools::PMVAL
        };
        let mut err = Vec::new();
        let o = parse(&args(&["pmval", "-H", "hosts", "m"]), spec, &[], &mut Files, &mut err);
        assert_eq!(o.hosts, args(&["h1"]));
        let env = [(b"PCP_FOLIO".to_vec(), b"dir/folio".to_vec())];
        let o = parse(&args(&["pmval", "m"]), spec, &env, &mut Files, &mut err);
        assert_eq!(o.archives, args(&["dir/a1", "/abs/a2"]));
        let env = [(b"PCP_FOLIO".to_vec(), b"dir/bad".to_vec())];
        let o = parse(&args(&["pmval", "m"]), spec, &env, &mut Files, &mut err);
        assert_eq!(text(&o), "pmval: missing host on archive folio line 3\n");
        assert!(o.runtime_error);
        let o = parse(&args(&["pmval", "-H", "nowhere", "m"]), spec, &[], &mut Files, &mut err);
        assert_eq!(text(&o), "pmval: cannot open hosts file nowhere: No such file or directory\n");
    }

    #[test]
    fn dirname_cuts_as_glibc_does() {
        let d = |p: &str| dirname(p.as_bytes()).map(|v| String::from_utf8_lossy(&v).into_owned());
        assert_eq!(d("folio"), None);
        assert_eq!(d("a/b/folio"), Some("a/b".into()));
        assert_eq!(d("/folio"), Some("/".into()));
        assert_eq!(d("//folio"), Some("//".into()));
        assert_eq!(d("a//b//"), Some("a".into()));
        assert_eq!(d("abc/"), None);
        assert_eq!(d("///"), Some("/".into()));
    }

    #[test]
    fn window_needs_an_archive_for_start_align_origin_but_not_finish() {
        let mut o = run(tools::PMVAL, &["pmval", "-T", "+1h", "-h", "h", "m"], &[]);
        o.end_options(&mut DefaultHooks);
        assert_eq!(o.errors, 0);
        let mut o = run(tools::PMVAL, &["pmval", "-A", "1h", "-h", "h", "m"], &[]);
        o.end_options(&mut DefaultHooks);
        assert_eq!(text(&o), "pmval: time window options are supported for archives only\n");
        assert!(o.usage_error);
    }
}
