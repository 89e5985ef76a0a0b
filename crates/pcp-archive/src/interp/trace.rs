//! The `-Dinterp` dumps of a metric-instance's bounds, as libpcp's
//! `dumpicp` and `dumpval` print them.

use super::{is, InstCtl, S_MARK, S_SCANNED, S_UNDEFINED, S_VALUE};
use pcp_core::debug::Trace;
use pcp_core::support::cfmt::sprintf_f64;
use pcp_core::{PmId, Value, PM_IN_NULL};
use std::fmt::Write;

/// What libpcp shows as the `lval` of a value held in a block: the low
/// half of the block's address, here a stable stand-in.
const FAKE_LVAL: i32 = 0x5600_0c40;

/// `dumpval`: one bound's state and value (`prior` or next) of `icp`,
/// of a metric of type `ty` whose values come as `valfmt`.
pub(super) fn dumpval(out: &mut String, ty: i32, valfmt: i32, prior: bool, icp: &InstCtl) {
    let (state, v) = if prior { (icp.s_prior, &icp.v_prior) } else { (icp.s_next, &icp.v_next) };
    if !is(state, S_VALUE) {
        out.push_str(" state=");
        if is(state, S_UNDEFINED) {
            out.push_str("<undefined>");
        } else if is(state, S_MARK) {
            out.push_str("<mark>");
        } else {
            let _ = write!(out, "<botch={state}>");
        }
        if is(state, S_SCANNED) {
            out.push_str("&<scanned>");
        }
        return;
    }
    if is(state, S_SCANNED) {
        out.push_str(" state=<scanned>");
    }
    let lval = match v {
        Some(Value::Insitu(l)) => *l,
        Some(Value::Block(_)) => FAKE_LVAL,
        None => 0,
    };
    let block = |n: usize| -> [u8; 8] {
        let mut b = [0u8; 8];
        if let Some(Value::Block(vb)) = v {
            for (o, d) in b.iter_mut().zip(vb.data.iter().take(n)) {
                *o = *d;
            }
        }
        b
    };
    let f = |x: f64| sprintf_f64("%f", &[], x).unwrap_or_default();
    if ty == 0 || ty == 1 {
        let _ = write!(out, " v={lval}");
    } else if ty == 4 && valfmt == 0 {
        let _ = write!(out, " v={}", f(f64::from(f32::from_bits(lval as u32))));
    } else if valfmt == 1 || valfmt == 2 {
        let b = block(8);
        match ty {
            2 => {
                let _ = write!(out, " v={}", i64::from_le_bytes(b));
            }
            3 => {
                let _ = write!(out, " v={}", u64::from_le_bytes(b));
            }
            4 => {
                let _ = write!(out, " v={}", f(f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))));
            }
            5 => {
                let _ = write!(out, " v={}", f(f64::from_le_bytes(b)));
            }
            _ => {
                let _ = write!(out, " v=??? (lval={lval})");
            }
        }
    } else {
        let _ = write!(out, " bad valfmt {valfmt} v=??? (lval={lval})");
    }
}

/// `dumpicp`: `tag`, the metric-instance and both its bounds.
pub(super) fn dumpicp(trace: &Trace, tag: &str, pmid: u32, ty: i32, valfmt: i32, icp: &InstCtl) {
    let mut out = String::with_capacity(160);
    let _ = write!(out, "{tag}: pmid {}", PmId(pmid));
    if icp.inst != PM_IN_NULL {
        let _ = write!(out, "[inst={}]", icp.inst);
    }
    out.push(':');
    if icp.t_first >= 0.0 {
        let _ = write!(out, " t_first={:.6}", icp.t_first);
    }
    let _ = write!(out, " t_prior={:.6}", icp.t_prior);
    dumpval(&mut out, ty, valfmt, true, icp);
    let _ = write!(out, " t_next={:.6}", icp.t_next);
    dumpval(&mut out, ty, valfmt, false, icp);
    if icp.t_last >= 0.0 {
        let _ = write!(out, " t_last={:.6}", icp.t_last);
    }
    if icp.t_birth >= 0.0 {
        let _ = write!(out, " t_birth={:.6}", icp.t_birth);
    }
    if icp.t_death >= 0.0 {
        let _ = write!(out, " t_death={:.6}", icp.t_death);
    }
    out.push('\n');
    trace.write_bytes(out.as_bytes());
}

/// The line libpcp prints for each value of the result once it has
/// rolled on to the requested time.
pub(super) fn dump_result_inst(trace: &Trace, pmid: u32, ty: i32, valfmt: i32, icp: &InstCtl) {
    let mut out = String::with_capacity(160);
    let _ = write!(out, "pmid {} inst {} prior: t={:.6}", PmId(pmid), icp.inst, icp.t_prior);
    dumpval(&mut out, ty, valfmt, true, icp);
    let _ = write!(out, " next: t={:.6}", icp.t_next);
    dumpval(&mut out, ty, valfmt, false, icp);
    let _ = writeln!(out, " t_first={:.6} t_last={:.6}", icp.t_first, icp.t_last);
    trace.write_bytes(out.as_bytes());
}
