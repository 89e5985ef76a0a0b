//! `pminfo`: list metric names, PMIDs and (with a metrics source)
//! descriptions, help text and values.
//!
//! What works today is the name-space part: `-n`/`-N FILE`, `-m`, `-M`,
//! metric and subtree names, PMIDs (`60.0.4`) and instance domains (`60.1`)
//! as arguments. Anything that needs a metrics source connects to pmcd as
//! pminfo does (so an absent pmcd is reported in PCP's words), then says
//! that pcp-rs cannot use host, archive or local contexts yet.

use crate::getopt::{self, OptSpec};
use pcp::Context;
use pcp_core::{InDom, PmError, PmId};
use pcp_pmns::cpp::{Files, OsFiles};
use std::ffi::OsString;
use std::io::Write;

const USAGE: &str = include_str!("pminfo-usage.txt");

/// Names are looked up (and printed) this many at a time, as pminfo does.
const BATCH: usize = 128;

const fn opt(short: char, long: &'static str, has_arg: bool) -> OptSpec {
    OptSpec { short, long: Some(long), has_arg }
}

const SPECS: &[OptSpec] = &[
    opt('a', "archive", true),
    opt('b', "batch", true),
    opt('c', "derived", true),
    OptSpec { short: 'C', long: None, has_arg: false },
    opt('d', "desc", false),
    opt('D', "debug", true),
    opt('F', "fetchall", false),
    opt('f', "fetch", false),
    opt('h', "host", true),
    opt('I', "fullindom", false),
    opt('K', "spec-local", true),
    opt('l', "labels", false),
    opt('L', "local-PMDA", false),
    opt('M', "fullpmid", false),
    opt('m', "pmid", false),
    opt('N', "uniqnames", true),
    opt('n', "namespace", true),
    opt('O', "origin", true),
    opt('s', "series", false),
    opt('t', "oneline", false),
    opt('T', "helptext", false),
    opt('v', "verify", false),
    opt('V', "version", false),
    opt('x', "events", false),
    opt('z', "hostzone", false),
    opt('Z', "timezone", true),
    opt('?', "help", false),
    // long only: its short letter is never typed
    OptSpec { short: '\u{1}', long: Some("container"), has_arg: true },
];

/// Run `pminfo` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_with(args, out, err, &mut OsFiles)
}

/// [`run`] reading name-space files through `files`.
pub fn run_with(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> i32 {
    // a failed write (other than a closed pipe) ends with failure
    Pminfo::new(out, err, files).main(args).unwrap_or(1)
}

struct Pminfo<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    files: &'a mut dyn Files,
    pmns: Option<Context>,
    p_mid: bool,
    p_fullmid: bool,
    batch: Vec<String>,
}

impl<'a> Pminfo<'a> {
    fn new(out: &'a mut dyn Write, err: &'a mut dyn Write, files: &'a mut dyn Files) -> Self {
        Pminfo { out, err, files, pmns: None, p_mid: false, p_fullmid: false, batch: Vec::new() }
    }

    fn main(&mut self, args: &[OsString]) -> std::io::Result<i32> {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
        let parsed = getopt::parse(&args, SPECS, "pminfo", self.err);
        let mut errors = parsed.errors;
        let mut runtime_error = false;
        let mut version = false;
        let mut need_context = false;
        let mut host: Option<String> = None;
        let mut archive: Option<String> = None;
        for o in &parsed.opts {
            match o.opt {
                'n' | 'N' => {
                    let file = o.arg.clone().unwrap_or_default();
                    if let Err(e) = self.load(&file, o.opt == 'n') {
                        let _ = writeln!(
                            self.err,
                            "pminfo: Cannot load namespace from \"{}\": {e}",
                            String::from_utf8_lossy(&file)
                        );
                        runtime_error = true;
                        errors += 1;
                    }
                }
                'm' => self.p_mid = true,
                'M' => {
                    self.p_mid = true;
                    self.p_fullmid = true;
                }
                'V' => version = true,
                '?' => errors += 1,
                'h' => {
                    host.get_or_insert_with(|| String::from_utf8_lossy(o.arg.as_deref().unwrap_or_default()).into());
                }
                'a' => {
                    archive.get_or_insert_with(|| String::from_utf8_lossy(o.arg.as_deref().unwrap_or_default()).into());
                }
                'd' | 'F' | 'f' | 'I' | 'l' | 's' | 't' | 'T' | 'v' | 'x' | 'L' | 'K' | 'c' | '\u{1}' => {
                    need_context = true
                }
                _ => {}
            }
        }
        if version && errors == 0 {
            self.err.write_all(b"pminfo version 6.0.3\n")?;
            return Ok(0);
        }
        if errors > 0 {
            if !runtime_error {
                self.err.write_all(USAGE.as_bytes())?;
            }
            return Ok(1);
        }
        let ctx = match self.pmns.take() {
            Some(ctx) if !need_context && host.is_none() && archive.is_none() => ctx,
            _ => return self.no_context(host, archive),
        };
        let mut status = 0;
        if parsed.operands.is_empty() {
            if let Err(e) = self.traverse(&ctx, "") {
                writeln!(self.err, "Error: {e}")?;
                status = 1;
            }
        }
        for arg in &parsed.operands {
            let name = String::from_utf8_lossy(arg).into_owned();
            let r = if arg.first().is_some_and(u8::is_ascii_digit) {
                self.digits(&ctx, &name)
            } else {
                self.traverse(&ctx, &name)
            };
            if let Err(e) = r {
                writeln!(self.err, "Error: {name}: {e}")?;
                status = 1;
            }
        }
        self.report(&ctx)?;
        Ok(status)
    }

    fn load(&mut self, file: &[u8], dupok: bool) -> Result<(), PmError> {
        if self.pmns.is_some() {
            return Err(PmError::PM_ERR_DUPPMNS);
        }
        let (ctx, diagnostics) = Context::load_namespace(file, dupok, self.files);
        let _ = self.err.write_all(&diagnostics);
        self.pmns = Some(ctx?);
        Ok(())
    }

    /// A metrics source is needed: reach pmcd as pminfo would (reporting
    /// its absence in PCP's words), then say what pcp-rs cannot do yet.
    fn no_context(&mut self, host: Option<String>, archive: Option<String>) -> std::io::Result<i32> {
        if let Some(a) = archive {
            writeln!(self.err, "pminfo: archive \"{a}\": archive contexts are not implemented in pcp-rs yet")?;
            return Ok(1);
        }
        let host = host.unwrap_or_else(|| "local:".to_string());
        match pcp::transport::connect(&host) {
            Err(e) => writeln!(self.err, "pminfo: Cannot connect to PMCD on host \"{host}\": {e}")?,
            Ok(_) => writeln!(
                self.err,
                "pminfo: pmcd on host \"{host}\" answers, but host contexts are not implemented in pcp-rs yet"
            )?,
        }
        Ok(1)
    }

    /// A PMID (`d.c.i`) or instance domain (`d.s`) argument.
    fn digits(&mut self, ctx: &Context, arg: &str) -> Result<(), PmError> {
        let parts: Vec<u32> = crate::cscanf::scan_dotted_u32(arg.as_bytes());
        match parts[..] {
            [d, c, i, ..] => {
                let name = ctx.name_of(PmId::new(d, c, i))?;
                self.traverse(ctx, &name)
            }
            [d, s] => {
                let indom = InDom::new(d, s);
                let _ = writeln!(self.out, "\nInDom: {indom} 0x{:x}", indom.0);
                Ok(())
            }
            _ => Err(PmError::PM_ERR_NAME),
        }
    }

    fn traverse(&mut self, ctx: &Context, name: &str) -> Result<(), PmError> {
        ctx.traverse_with(name, |n| {
            if n.is_empty() {
                let _ = self.out.write_all(b"PMNS appears to be empty!\n");
                return;
            }
            self.batch.push(n.to_string());
            if self.batch.len() >= BATCH {
                let _ = Self::report_batch(ctx, &mut self.batch, self.out, self.p_mid, self.p_fullmid);
            }
        })
    }

    fn report(&mut self, ctx: &Context) -> std::io::Result<()> {
        Self::report_batch(ctx, &mut self.batch, self.out, self.p_mid, self.p_fullmid)
    }

    /// Print a batch of names (looked up together, as pminfo does).
    fn report_batch(
        pmns: &Context,
        batch: &mut Vec<String>,
        out: &mut dyn Write,
        p_mid: bool,
        p_fullmid: bool,
    ) -> std::io::Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut pmids = vec![PmId::NULL; batch.len()];
        let mut names: Vec<&str> = batch.iter().map(String::as_str).collect();
        if p_mid {
            match pmns.lookup_names(&names) {
                Ok((ids, _)) => pmids = ids,
                Err(e) => {
                    // one name in the batch, and it failed
                    for n in &names {
                        writeln!(out, "{n}: pmLookupName: {e}")?;
                    }
                    names.clear();
                }
            }
        }
        for (name, pmid) in names.iter().zip(&pmids) {
            out.write_all(name.as_bytes())?;
            if p_mid {
                write!(out, " PMID: {pmid}")?;
            }
            if p_fullmid {
                write!(out, " = {} = 0x{:x}", pmid.0, pmid.0)?;
            }
            out.write_all(b"\n")?;
        }
        batch.clear();
        Ok(())
    }
}
