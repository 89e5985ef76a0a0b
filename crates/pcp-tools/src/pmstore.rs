//! `pmstore`: change the value of a metric in pmcd (`pmStore`), for all
//! of its current instances or those named with `-i`, then report the old
//! and new values (the new as stored, or as fetched again with `-F`).
//!
//! The value is read for the metric's type as libpcp's `__pmStringValue`
//! reads it (decimal, or hexadecimal with `0x`; `strtod` for floating
//! point, where a float must be a normal number; the text itself for
//! strings), and refused with pmstore's messages when it does not fit.
//! `-f` stores even where the metric has no value now. With `-L` (and
//! `-K` specs) the store goes to the local context's agents, which are
//! pcp-rs's built-in ones and take no stores (PCP's would load the DSO
//! PMDAs, the sample PMDA's among them, which do).

use crate::options::{self, tools, ContextKind, Hooks, Parser};
use pcp::local::Agents;
use pcp::Context;
use pcp_core::{FetchResult, InstValue, MetricType, PmError, PmResult, Value, ValueBlock, ValueSet, PM_IN_NULL};
use pcp_pmns::cpp::OsFiles;
use std::ffi::OsString;
use std::io::Write;

/// Run `pmstore` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    main(args, &options::process_env(), out, err).unwrap_or(1)
}

/// `-n`: the name space, loaded as the option is seen; `-K`: the local
/// context's agents.
#[derive(Default)]
struct NamespaceHooks {
    loaded: Option<Context>,
    diagnostics: Vec<u8>,
    agents: Agents,
    /// `-D`, `$PCP_DEBUG`: the context's trace.
    trace: pcp::debug::Trace,
}

impl Hooks for NamespaceHooks {
    fn load_namespace(&mut self, path: &[u8], dupok: bool) -> Result<(), String> {
        let (ctx, diagnostics) = Context::load_namespace(path, dupok, &mut OsFiles);
        if !diagnostics.starts_with(b"Error Parsing ASCII PMNS: Cannot open \"")
            && std::env::var_os("PCP_ALT_CPP").is_none()
        {
            // (-Dconfig: pmcpp ran, found where libpcp looks it up)
            let _ = pcp::config::lookup_optional("PCP_BINADM_DIR", &self.trace);
        }
        if !diagnostics.is_empty() {
            // (libpcp's pmflush of them)
            pcp::config::trace_flush(&self.trace);
            self.diagnostics.extend_from_slice(&self.trace.take());
        }
        self.diagnostics.extend_from_slice(&diagnostics);
        self.loaded = Some(ctx.map_err(|e| e.code().to_string())?);
        Ok(())
    }

    fn spec_local(&mut self, spec: &[u8]) -> Result<(), String> {
        let applied = self.agents.apply_spec_traced(&String::from_utf8_lossy(spec), &self.trace);
        self.diagnostics.extend_from_slice(&self.trace.take());
        applied
    }

    fn set_debug(&mut self, opts: pcp::debug::DebugOptions) {
        self.trace = self.trace.with_options(opts);
    }

    fn trace(&self) -> pcp::debug::Trace {
        self.trace.clone()
    }
}

/// Why a value cannot be stored as the metric's type (`__pmStringValue`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ValueError {
    /// `PM_ERR_TYPE`: not a number of the type, or more after it.
    Type,
    /// `-ERANGE`: out of range for the type.
    Range,
}

/// `__pmStringValue` then `__pmStuffValue`: the value `text` stores as,
/// for a metric of type `ty`, at instance `inst`.
pub(crate) fn stuff_value(text: &[u8], ty: MetricType, inst: i32) -> Result<InstValue, ValueError> {
    // a hexadecimal number is "0x" then hex digits only, after white
    // space and a minus sign
    let ws = text.iter().take_while(|&&c| pcp_core::support::strtod::is_c_space(c)).count();
    let mut body = &text[ws..];
    if body.first() == Some(&b'-') {
        body = &body[1..];
    }
    let hex =
        body.len() >= 2 && body[0] == b'0' && (body[1] | 0x20) == b'x' && body[2..].iter().all(u8::is_ascii_hexdigit);
    let base = if hex { 16 } else { 10 };
    let block = |data: Vec<u8>| Value::Block(ValueBlock::new(ty.0 as u8, data));
    let whole = |used: usize| if used == text.len() { Ok(()) } else { Err(ValueError::Type) };
    let value = match ty {
        MetricType::I32 | MetricType::U32 | MetricType::I64 | MetricType::U64 => {
            let (neg, m, used) = pcp_core::support::strtod::strtoint_parts(text, base);
            // no digits: strtol leaves the end at the start
            whole(used)?;
            match ty {
                MetricType::I32 => {
                    let v = if neg { -(m.min(1 << 64) as i128) } else { m.min(1 << 64) as i128 };
                    let v = i32::try_from(v).map_err(|_| ValueError::Range)?;
                    Value::Insitu(v)
                }
                MetricType::U32 => {
                    // strtoul turns a negative number around in 64 bits
                    let v = if m > u128::from(u64::MAX) {
                        return Err(ValueError::Range);
                    } else if neg {
                        (m as u64).wrapping_neg()
                    } else {
                        m as u64
                    };
                    Value::Insitu(u32::try_from(v).map_err(|_| ValueError::Range)? as i32)
                }
                MetricType::I64 => {
                    let limit = if neg { 1u128 << 63 } else { (1u128 << 63) - 1 };
                    if m > limit {
                        return Err(ValueError::Range);
                    }
                    let v = if neg { (m as i128).wrapping_neg() as i64 } else { m as i64 };
                    block(v.to_le_bytes().to_vec())
                }
                _ => {
                    if m > u128::from(u64::MAX) {
                        return Err(ValueError::Range);
                    }
                    let v = if neg { (m as u64).wrapping_neg() } else { m as u64 };
                    block(v.to_le_bytes().to_vec())
                }
            }
        }
        MetricType::FLOAT | MetricType::DOUBLE => {
            if hex {
                // libpcp will not have strtod read hexadecimal
                return Err(ValueError::Type);
            }
            let ws = text.iter().take_while(|&&c| pcp_core::support::strtod::is_c_space(c)).count();
            let (d, range_error) = match pcp_core::support::strtod::parse_prefix(&text[ws..]) {
                Some(p) => {
                    whole(ws + p.len)?;
                    (p.value, p.range_error)
                }
                None => {
                    whole(0)?;
                    (0.0, false)
                }
            };
            if ty == MetricType::FLOAT {
                // a float must be normal: zero is out of range too
                if d.abs() < f64::from(f32::MIN_POSITIVE) || d.abs() > f64::from(f32::MAX) {
                    return Err(ValueError::Range);
                }
                block((d as f32).to_le_bytes().to_vec())
            } else {
                if range_error {
                    return Err(ValueError::Range);
                }
                block(d.to_le_bytes().to_vec())
            }
        }
        MetricType::STRING => {
            let mut data = text.to_vec();
            data.push(0);
            block(data)
        }
        _ => return Err(ValueError::Type),
    };
    Ok(InstValue { inst, value })
}

fn main(
    args: &[OsString],
    env: &[(Vec<u8>, Vec<u8>)],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<i32> {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let mut hooks = NamespaceHooks::default();
    let mut p = Parser::new(&args, tools::PMSTORE, env, &mut hooks, err);
    let (mut force, mut fetch) = (false, false);
    let mut insts: Vec<Vec<u8>> = Vec::new();
    while let Some(o) = p.next_tool_opt() {
        match o.opt {
            b'f' => force = true,
            b'F' => fetch = true,
            b'i' => {
                let arg = o.arg.unwrap_or_default();
                let sep = |c: &u8| matches!(c, b',' | b' ' | b'\t' | b'\n');
                insts.extend(arg.split(sep).filter(|t| !t.is_empty()).map(<[u8]>::to_vec));
            }
            _ => p.opts.errors += 1,
        }
    }
    let mut opts = p.finish();
    err.write_all(&std::mem::take(&mut hooks.diagnostics))?;
    if opts.errors > 0 || opts.operands.len() != 2 || opts.exit {
        let status = i32::from(!opts.exit);
        opts.usage_message(err)?;
        return Ok(status);
    }
    let mut ctx = if opts.context == Some(ContextKind::Local) {
        let names = hooks.loaded.take().map(Context::into_namespace);
        let failed = "pmstore: Cannot make standalone local connection";
        match crate::local::open_reporting(env, &hooks.agents, names, &hooks.trace, failed, err)? {
            Some(c) => c,
            None => return Ok(1),
        }
    } else {
        let source =
            opts.hosts.first().map_or_else(|| "local:".to_string(), |h| String::from_utf8_lossy(h).into_owned());
        let opened = Context::open_host_traced(&source, &hooks.trace).map_err(PmError::from);
        // (what the handshake traced, where libpcp wrote it)
        err.write_all(&hooks.trace.take())?;
        let mut ctx = match opened {
            Ok(c) => c,
            Err(e) => {
                err.write_all(&pcp::host::spec_report(&source))?;
                writeln!(err, "pmstore: Cannot connect to PMCD on host \"{source}\": {e}")?;
                return Ok(1);
            }
        };
        if let Some(ns) = hooks.loaded.take() {
            ctx.use_namespace_of(ns);
        }
        ctx
    };
    // the derived metrics libpcp registers at the first context
    // ($PCP_DERIVED_CONFIG): pmstore finds, describes and fetches them
    // (pmcd refuses to store into them)
    let (mut registry, report) = pcp::derived::startup_registry_traced("pmstore", &hooks.trace);
    crate::options::hooks::tools_registry(&mut registry);
    err.write_all(&report)?;
    ctx.set_trace(hooks.trace.clone());
    ctx.bind_derived(&registry);
    let name = String::from_utf8_lossy(&opts.operands[0]).into_owned();
    let text = opts.operands[1].clone();
    let stored = store(&mut ctx, &name, &text, &insts, force, fetch, out, err)?;
    // (what the last requests traced, and the local agents' end)
    ctx.trace_exit();
    err.write_all(&ctx.take_messages())?;
    match stored {
        Ok(()) => Ok(0),
        Err(()) => Ok(1),
    }
}

/// pmstore's work once connected; `Err` after reporting a failure.
#[allow(clippy::too_many_arguments)]
fn store(
    ctx: &mut Context,
    name: &str,
    text: &[u8],
    insts: &[Vec<u8>],
    force: bool,
    fetch: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Result<(), ()>> {
    let pmid = match ctx.lookup_names(&[name]).map_err(PmError::from) {
        Ok((ids, _)) if ids[0].is_null() => {
            writeln!(out, "{name}: unknown metric")?;
            return Ok(Err(()));
        }
        Ok((ids, _)) => ids[0],
        Err(e) => {
            writeln!(out, "{name}: pmLookupName: {e}")?;
            return Ok(Err(()));
        }
    };
    let desc = ctx.lookup_desc(pmid);
    err.write_all(&ctx.take_messages())?;
    let desc = match desc {
        Ok(d) => d,
        Err(e) => {
            writeln!(out, "{name}: pmLookupDesc: {e}")?;
            return Ok(Err(()));
        }
    };
    if matches!(desc.ty, MetricType::AGGREGATE | MetricType::AGGREGATE_STATIC) {
        writeln!(err, "pmstore: Cannot modify values for PM_TYPE_AGGREGATE metrics")?;
        return Ok(Err(()));
    }
    if matches!(desc.ty, MetricType::EVENT | MetricType::HIGHRES_EVENT) {
        writeln!(err, "pmstore: Cannot modify values for event type metrics")?;
        return Ok(Err(()));
    }
    if !insts.is_empty() {
        // only the instances named
        let _ = ctx.del_profile(desc.indom, &[]);
        for inst in insts {
            let iname = String::from_utf8_lossy(inst);
            let id = match ctx.lookup_indom(desc.indom, inst) {
                Ok(id) => id,
                Err(e) => {
                    writeln!(out, "pmLookupInDom {name}[{iname}]: {e}")?;
                    return Ok(Err(()));
                }
            };
            if let Err(e) = ctx.add_profile(desc.indom, &[id]) {
                writeln!(out, "pmAddProfile {name}[{iname}]: {e}")?;
                return Ok(Err(()));
            }
        }
    }
    let old = ctx.fetch(&[pmid]);
    err.write_all(&ctx.take_messages())?;
    let old = match old {
        Ok(r) => r,
        Err(e) => {
            writeln!(out, "{name}: pre pmFetch: {e}")?;
            return Ok(Err(()));
        }
    };
    let old_values: Vec<InstValue> = match old.sets.first().map(|s| &s.values) {
        Some(Ok(v)) => v.clone(),
        Some(Err(e)) => {
            writeln!(out, "{name}: Error: {e}")?;
            return Ok(Err(()));
        }
        None => Vec::new(),
    };
    let show = String::from_utf8_lossy(text);
    // the value is read only now, after the metric's current values
    if let Err(e) = stuff_value(text, desc.ty, PM_IN_NULL) {
        let what = if e == ValueError::Type { "is incompatible with" } else { "is out of range for" };
        writeln!(err, "The value \"{show}\" {what} the data type (PM_TYPE_{})", desc.ty.name())?;
        return Ok(Err(()));
    }
    let mut old_force = false;
    let targets: Vec<i32> = if old_values.is_empty() {
        if !force {
            writeln!(out, "{name}: No value(s) available!")?;
            return Ok(Err(()));
        }
        // no value now: store one, with no instance to speak of
        old_force = true;
        vec![PM_IN_NULL]
    } else {
        old_values.iter().map(|v| v.inst).collect()
    };
    let values: PmResult<Vec<InstValue>> =
        targets.iter().map(|&inst| stuff_value(text, desc.ty, inst).map_err(|_| PmError::PM_ERR_TYPE)).collect();
    let Ok(values) = values else { return Ok(Err(())) };
    let request = FetchResult { timestamp: old.timestamp, sets: vec![ValueSet { pmid, values: Ok(values) }] };
    let stored = ctx.store(&request);
    err.write_all(&ctx.take_messages())?;
    if let Err(e) = stored {
        writeln!(out, "{name}: new value=\"{show}\" pmStore: {e}")?;
        return Ok(Err(()));
    }
    let new_values: Vec<InstValue> = if fetch {
        let fetched = ctx.fetch(&[pmid]);
        err.write_all(&ctx.take_messages())?;
        match fetched {
            Ok(r) => r.sets.into_iter().next().and_then(|s| s.values.ok()).unwrap_or_default(),
            Err(e) => {
                writeln!(out, "{name}: post pmFetch: {e}")?;
                return Ok(Err(()));
            }
        }
    } else {
        request.sets.into_iter().next().and_then(|s| s.values.ok()).unwrap_or_default()
    };
    for (i, nv) in new_values.iter().enumerate() {
        write!(out, "{name}")?;
        if !desc.indom.is_null() {
            match ctx.name_indom(desc.indom, nv.inst) {
                Ok(n) => {
                    write!(out, " inst [{} or \"", nv.inst)?;
                    out.write_all(&n)?;
                    write!(out, "\"]")?;
                }
                Err(_) => write!(out, " inst [{}]", nv.inst)?,
            }
        }
        write!(out, " old value=")?;
        if old_force {
            write!(out, "\"(none)\"")?;
        } else if let Some(ov) = old_values.get(i) {
            let mut t = Vec::new();
            let _ = pcp_core::format::print_value(&mut t, &ov.value, desc.ty, 1);
            out.write_all(&t)?;
        }
        write!(out, " new value=")?;
        let mut t = Vec::new();
        let _ = pcp_core::format::print_value(&mut t, &nv.value, desc.ty, 1);
        out.write_all(&t)?;
        writeln!(out)?;
    }
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insitu(text: &str, ty: MetricType) -> Result<i32, ValueError> {
        match stuff_value(text.as_bytes(), ty, PM_IN_NULL)?.value {
            Value::Insitu(l) => Ok(l),
            Value::Block(_) => panic!("a block for {text}"),
        }
    }

    fn block(text: &str, ty: MetricType) -> Result<Vec<u8>, ValueError> {
        match stuff_value(text.as_bytes(), ty, PM_IN_NULL)?.value {
            Value::Block(b) => {
                assert_eq!(b.vtype as i32, ty.0);
                Ok(b.data.into_vec())
            }
            Value::Insitu(_) => panic!("in place for {text}"),
        }
    }

    #[test]
    fn integers_read_as_libpcp_reads_them() {
        use MetricType as T;
        assert_eq!(insitu("42", T::I32), Ok(42));
        assert_eq!(insitu(" -7", T::I32), Ok(-7));
        assert_eq!(insitu("0x1F", T::I32), Ok(31));
        assert_eq!(insitu("-0x10", T::I32), Ok(-16));
        // base 10 unless the whole rest is hexadecimal
        assert_eq!(insitu("010", T::I32), Ok(10));
        assert_eq!(insitu("0x1g", T::I32), Err(ValueError::Type));
        assert_eq!(insitu("+0x10", T::I32), Err(ValueError::Type));
        assert_eq!(insitu("12 ", T::I32), Err(ValueError::Type));
        assert_eq!(insitu("x", T::I32), Err(ValueError::Type));
        // strtol reads nothing in an empty value, and that is a zero
        assert_eq!(insitu("", T::I32), Ok(0));
        assert_eq!(insitu("2147483648", T::I32), Err(ValueError::Range));
        assert_eq!(insitu("-2147483648", T::I32), Ok(i32::MIN));
        assert_eq!(insitu("4294967295", T::U32), Ok(-1));
        assert_eq!(insitu("4294967296", T::U32), Err(ValueError::Range));
        assert_eq!(insitu("-1", T::U32), Err(ValueError::Range));
        assert_eq!(insitu("-0", T::U32), Ok(0));
        assert_eq!(block("-1", T::U64), Ok(u64::MAX.to_le_bytes().to_vec()));
        assert_eq!(block("18446744073709551616", T::U64), Err(ValueError::Range));
        assert_eq!(block("-9223372036854775808", T::I64), Ok(i64::MIN.to_le_bytes().to_vec()));
        assert_eq!(block("9223372036854775808", T::I64), Err(ValueError::Range));
    }

    #[test]
    fn reals_and_strings_read_as_libpcp_reads_them() {
        use MetricType as T;
        assert_eq!(block("1.5", T::FLOAT), Ok(1.5f32.to_le_bytes().to_vec()));
        // a float must be a normal number: not zero, not tiny, not huge
        assert_eq!(block("0", T::FLOAT), Err(ValueError::Range));
        assert_eq!(block("1e-40", T::FLOAT), Err(ValueError::Range));
        assert_eq!(block("1e39", T::FLOAT), Err(ValueError::Range));
        assert_eq!(block("0x10", T::FLOAT), Err(ValueError::Type));
        assert_eq!(block(" 2.5e3", T::DOUBLE), Ok(2500f64.to_le_bytes().to_vec()));
        assert_eq!(block("0", T::DOUBLE), Ok(0f64.to_le_bytes().to_vec()));
        assert_eq!(block("1e400", T::DOUBLE), Err(ValueError::Range));
        assert_eq!(block("1.0x", T::DOUBLE), Err(ValueError::Type));
        assert_eq!(block("hullo", T::STRING), Ok(b"hullo\0".to_vec()));
        assert!(stuff_value(b"1", MetricType::NOSUPPORT, 0).is_err());
    }
}
