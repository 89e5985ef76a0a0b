//! The value of one instance at the requested time, from its bounds.

use super::InstCtl;
use pcp_core::{Semantics, Value, ValueBlock};

// C's float to integer conversions as gcc compiles them on x86-64
fn cvtt_i32(v: f64) -> i32 {
    if v > -2147483649.0 && v < 2147483648.0 {
        v as i32
    } else {
        i32::MIN
    }
}

fn cvtt_i64(v: f64) -> i64 {
    if (-9223372036854775808.0..9223372036854775808.0).contains(&v) {
        v as i64
    } else {
        i64::MIN
    }
}

fn cvt_u32(v: f64) -> u32 {
    cvtt_i64(v) as u32
}

fn cvt_u64(v: f64) -> u64 {
    const TWO63: f64 = 9223372036854775808.0;
    if v >= TWO63 {
        (cvtt_i64(v - TWO63) as u64) ^ (1 << 63)
    } else {
        cvtt_i64(v) as u64
    }
}

fn lval(v: &Option<Value>) -> i32 {
    match v {
        Some(Value::Insitu(l)) => *l,
        _ => 0,
    }
}

fn bytes8(v: &Option<Value>) -> [u8; 8] {
    let mut out = [0u8; 8];
    if let Some(Value::Block(b)) = v {
        for (o, d) in out.iter_mut().zip(&b.data) {
            *o = *d;
        }
    }
    out
}

fn f32_of(v: &Option<Value>) -> f32 {
    let b = bytes8(v);
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// One instance's value at `t_req` from its bounds, or `None` where libpcp
/// puts none.
pub(super) fn interpolate(
    ty: i32,
    sem: Semantics,
    valfmt: i32,
    icp: &InstCtl,
    t_req: f64,
    wrap: bool,
) -> Option<Value> {
    let exact = if icp.t_prior == t_req {
        Some(&icp.v_prior)
    } else if icp.t_next == t_req {
        Some(&icp.v_next)
    } else {
        None
    };
    let both = icp.t_prior >= 0.0 && icp.t_next >= 0.0;
    // for non-counters: which held value to take, if any
    let held = || -> Option<&Option<Value>> {
        if sem == Semantics::DISCRETE {
            (icp.t_prior >= 0.0).then_some(&icp.v_prior)
        } else if sem == Semantics::INSTANT {
            both.then_some(&icp.v_prior)
        } else {
            None
        }
    };
    let counter = sem != Semantics::DISCRETE && sem != Semantics::INSTANT;
    let dt_req = t_req - icp.t_prior;
    let dt = icp.t_next - icp.t_prior;
    let block = |vtype: i32, data: &[u8]| Some(Value::Block(ValueBlock::from_slice(vtype as u8, data)));
    match ty {
        0 | 1 => {
            if let Some(v) = exact {
                return Some(Value::Insitu(lval(v)));
            }
            if !counter {
                return held().map(|v| Value::Insitu(lval(v)));
            }
            if !both {
                return None;
            }
            let (p, n) = (lval(&icp.v_prior), lval(&icp.v_next));
            let out = if ty == 0 {
                if n >= p || !wrap {
                    cvtt_i32(0.5 + p as f64 + dt_req * (n.wrapping_sub(p) as f64) / dt)
                } else {
                    // libpcp adds the prior value to the following slot
                    // instead of this one
                    cvtt_i32(0.5 + dt_req * (n.wrapping_sub(p) as f64) / dt)
                }
            } else {
                let (p, n) = (p as u32, n as u32);
                let ul = if n >= p {
                    cvt_u32(0.5 + p as f64 + dt_req * (n - p) as f64 / dt)
                } else if wrap {
                    cvt_u32(0.5 + dt_req * (n.wrapping_sub(p) as f64) / dt).wrapping_add(p)
                } else {
                    cvt_u32(0.5 + p as f64 - dt_req * (p - n) as f64 / dt)
                };
                ul as i32
            };
            Some(Value::Insitu(out))
        }
        4 if valfmt == 0 => {
            if let Some(v) = exact {
                return Some(Value::Insitu(lval(v)));
            }
            if !counter {
                return held().map(|v| Value::Insitu(lval(v)));
            }
            if !both {
                return None;
            }
            let (p, n) = (f32::from_bits(lval(&icp.v_prior) as u32), f32::from_bits(lval(&icp.v_next) as u32));
            let f = (p as f64 + dt_req * ((n - p) as f64) / dt) as f32;
            Some(Value::Insitu(f.to_bits() as i32))
        }
        4 => {
            let src = match exact {
                Some(v) => v,
                None if !counter => held()?,
                None => {
                    if !both {
                        return None;
                    }
                    let (p, n) = (f32_of(&icp.v_prior), f32_of(&icp.v_next));
                    let f = (p as f64 + dt_req * ((n - p) as f64) / dt) as f32;
                    return block(4, &f.to_le_bytes());
                }
            };
            block(4, &bytes8(src)[..4])
        }
        2 | 3 => {
            let src = match exact {
                Some(v) => v,
                None if !counter => held()?,
                None => {
                    if !both {
                        return None;
                    }
                    let (p, n) = (i64::from_le_bytes(bytes8(&icp.v_prior)), i64::from_le_bytes(bytes8(&icp.v_next)));
                    let out = if ty == 2 {
                        cvtt_i64(0.5 + p as f64 + dt_req * (n.wrapping_sub(p) as f64) / dt) as u64
                    } else if n >= p {
                        // libpcp compares the unsigned values, and converts
                        // the prior, as signed; and its compiler, reasoning
                        // that a signed difference cannot overflow, converts
                        // the difference as signed too
                        cvt_u64(0.5 + p as f64 + dt_req * (n.wrapping_sub(p) as f64) / dt)
                    } else if wrap {
                        let d = (n as u64).wrapping_sub(p as u64);
                        cvt_u64(0.5 + p as f64 + dt_req * (d as f64) / dt)
                    } else {
                        cvt_u64(0.5 + p as f64 - dt_req * (p.wrapping_sub(n) as f64) / dt)
                    };
                    return block(ty, &out.to_le_bytes());
                }
            };
            block(ty, &bytes8(src))
        }
        5 => {
            let src = match exact {
                Some(v) => v,
                None if !counter => held()?,
                None => {
                    if !both {
                        return None;
                    }
                    let (p, n) = (f64::from_le_bytes(bytes8(&icp.v_prior)), f64::from_le_bytes(bytes8(&icp.v_next)));
                    let d = p + dt_req * (n - p) / dt;
                    return block(5, &d.to_le_bytes());
                }
            };
            block(5, &bytes8(src))
        }
        6 | 7 | 9 | 10 if icp.t_prior >= 0.0 => match &icp.v_prior {
            Some(Value::Block(b)) => Some(Value::Block(b.clone())),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_behave_like_x86_64() {
        assert_eq!(cvtt_i32(f64::NAN), i32::MIN);
        assert_eq!(cvtt_i32(3e9), i32::MIN);
        assert_eq!(cvtt_i32(-2.7), -2);
        assert_eq!(cvt_u32(-1.0), u32::MAX);
        assert_eq!(cvt_u32(4294967296.5), 0);
        assert_eq!(cvt_u64(-1.0), u64::MAX);
        assert_eq!(cvt_u64(f64::NAN), 1 << 63);
        assert_eq!(cvt_u64(1.8446744073709552e19), 0);
        assert_eq!(cvt_u64(9223372036854775808.0), 1 << 63);
    }
}
