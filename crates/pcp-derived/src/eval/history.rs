//! `delta()` and `rate()`: the difference from the previous fetch's
//! values, kept node by node in the evaluator's state.

use super::values::*;
use super::{numval, CounterDecrease, Evaluator};
use crate::ast::Func;
use pcp_core::{AtomValue, MetricType, PmError, Semantics, Timestamp};

impl Evaluator {
    pub(super) fn delta(&mut self, i: usize, f: Func, x: usize, stamp: Timestamp) -> Result<(), PmError> {
        {
            let st = &mut self.state[i];
            st.last_stamp = st.stamp;
            st.stamp = stamp;
        }
        let mut out = self.out_buf(i, 0);
        let (cur, last) = (&self.state[x].cur, &self.state[x].last);
        let n = numval(cur).min(numval(last));
        if n < 0 {
            return self.set(i, Err(PmError::from_code(n)));
        }
        if n == 0 {
            return self.set(i, Ok(out));
        }
        let (cur, last) = (vals_or_none(cur), vals_or_none(last));
        let xd = self.desc_of(x);
        let (now, then) = (self.state[i].stamp, self.state[i].last_stamp);
        let dt = (now.sec as f64 - then.sec as f64) + (f64::from(now.nsec) - f64::from(then.nsec)) / 1e9;
        // rate() of a time counter: a utilisation, scaled to seconds
        let time_scale = if f == Func::Rate && xd.units.dim_time() == 1 {
            let st = xd.units.scale_time() as i32;
            if st > 3 {
                (3..st).fold(1.0, |s, _| s * 60.0)
            } else {
                (st..3).fold(1.0, |s, _| s / 1000.0)
            }
        } else {
            1.0
        };
        // a counter that went down (wrapped or reset) has no rate
        let skip_decrease =
            f == Func::Rate && xd.sem == Semantics::COUNTER && self.counter_decrease == CounterDecrease::NoValue;
        out.reserve(cur.len());
        for (k, (inst, a)) in cur.iter().enumerate() {
            let mut j = if k < last.len() { k } else { 0 };
            if last.get(j).map(|v| v.0) != Some(*inst) {
                let traced = self.traces_matching(&[x]);
                if traced {
                    let name = if f == Func::Delta { "DELTA" } else { "RATE" };
                    let was = last.get(j).map_or(0, |v| v.0);
                    let at = out.len();
                    self.trace.write(format_args!(
                        "eval_expr: {name}: inst[{at}] mismatch left [{k}]={inst} last [{j}]={was}\n"
                    ));
                }
                match last.iter().position(|v| v.0 == *inst) {
                    Some(p) => {
                        if traced {
                            self.trace.write(format_args!("eval_expr: recover @ last [{p}]={inst}\n"));
                        }
                        j = p
                    }
                    None => continue,
                }
            }
            let Some((_, b)) = last.get(j) else { continue };
            let t = xd.ty;
            if skip_decrease && decreased(a, b, t) {
                continue;
            }
            let v = if f == Func::Delta {
                match t {
                    MetricType::I32 => AtomValue::I32(as_i32(a, t).wrapping_sub(as_i32(b, t))),
                    MetricType::U32 => AtomValue::I64(i64::from(as_u32(a, t)) - i64::from(as_u32(b, t))),
                    MetricType::I64 => AtomValue::I64(as_i64(a, t).wrapping_sub(as_i64(b, t))),
                    MetricType::U64 => AtomValue::Double(as_u64(a, t) as f64 - as_u64(b, t) as f64),
                    MetricType::FLOAT => AtomValue::Float(as_f32(a, t) - as_f32(b, t)),
                    MetricType::DOUBLE => AtomValue::Double(as_f64(a, t) - as_f64(b, t)),
                    _ => return self.set(i, Err(PmError::PM_ERR_CONV)),
                }
            } else {
                // counters wrap in their own type before the division
                let d = match t {
                    MetricType::I32 => f64::from(as_i32(a, t).wrapping_sub(as_i32(b, t))),
                    MetricType::U32 => f64::from(as_u32(a, t).wrapping_sub(as_u32(b, t))),
                    MetricType::I64 => as_i64(a, t).wrapping_sub(as_i64(b, t)) as f64,
                    MetricType::U64 => as_u64(a, t).wrapping_sub(as_u64(b, t)) as f64,
                    MetricType::FLOAT => f64::from(as_f32(a, t) - as_f32(b, t)),
                    MetricType::DOUBLE => as_f64(a, t) - as_f64(b, t),
                    _ => return self.set(i, Err(PmError::PM_ERR_CONV)),
                };
                AtomValue::Double(d / dt * time_scale)
            };
            out.push((*inst, v));
        }
        self.set(i, Ok(out))
    }
}

/// Whether a value of type `t` is smaller than the previous one.
fn decreased(now: &AtomValue, then: &AtomValue, t: MetricType) -> bool {
    match t {
        MetricType::I32 => as_i32(now, t) < as_i32(then, t),
        MetricType::U32 => as_u32(now, t) < as_u32(then, t),
        MetricType::I64 => as_i64(now, t) < as_i64(then, t),
        MetricType::U64 => as_u64(now, t) < as_u64(then, t),
        MetricType::FLOAT => as_f32(now, t) < as_f32(then, t),
        MetricType::DOUBLE => as_f64(now, t) < as_f64(then, t),
        _ => false,
    }
}
