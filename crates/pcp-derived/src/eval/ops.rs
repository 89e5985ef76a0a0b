//! Evaluation of operators and functions: the aggregates (`sum`,
//! `avg`, `count`, `min`, `max`), the ternary and the binary operators,
//! and the per-value maps `!`, `-` and rescaling use.

use super::values::*;
use super::{numval, Evaluator, Vals};
use crate::ast::{BinOp, Expr, Func, Node};
use crate::check::Choose;
use pcp_core::{AtomValue, InDom, MetricType, PmError, PM_IN_NULL};

impl Evaluator {
    /// Node `i`'s values: `f` of each of node `x`'s.
    pub(super) fn map_vals(&mut self, i: usize, x: usize, f: impl Fn(&AtomValue) -> AtomValue) -> Vals {
        self.map_vals_opt(i, x, |a| Some(f(a)))
    }

    /// Node `i`'s values: `f` of each of node `x`'s, where it gives one.
    pub(super) fn map_vals_opt(&mut self, i: usize, x: usize, f: impl Fn(&AtomValue) -> Option<AtomValue>) -> Vals {
        let mut out = self.out_buf(i, self.vals(x).len());
        match &self.state[x].cur {
            Ok(v) => {
                out.extend(v.iter().filter_map(|(inst, a)| f(a).map(|b| (*inst, b))));
                Ok(out)
            }
            Err(e) => Err(*e),
        }
    }

    pub(super) fn aggregate(&mut self, i: usize, f: Func, x: usize) -> Result<(), PmError> {
        let ty = self.desc_of(i).ty;
        let xt = self.desc_of(x).ty;
        let vals = self.vals(x);
        let n = vals.len();
        let one: Option<AtomValue> = match f {
            Func::Count => Some(AtomValue::U32(n as u32)),
            Func::Scalar => vals.first().map(|(_, v)| v.clone()),
            Func::Avg => {
                let nf = n as f32;
                Some(AtomValue::Float(vals.iter().fold(0f32, |s, (_, v)| s + as_f32(v, xt) / nf)))
            }
            Func::Sum => {
                let zero = convert(&AtomValue::U32(0), ty);
                Some(vals.iter().fold(zero, |s, (_, v)| arith(ty, BinOp::Add, &s, &convert(v, ty))))
            }
            Func::Max | Func::Min => Some(extreme_alike(vals, f == Func::Max, ty).unwrap_or_else(|| {
                let prev = match &self.state[i].cur {
                    Ok(v) => v.first().map(|p| p.1.clone()),
                    Err(_) => None,
                };
                extreme(vals, f == Func::Max, ty, prev)
            })),
            // (Delta, Rate, Instant, Defined are done elsewhere)
            _ => None,
        };
        // (in the list the values before last held)
        let mut out = self.out_buf(i, 1);
        out.extend(one.map(|v| (PM_IN_NULL, v)));
        self.set(i, Ok(out))
    }

    pub(super) fn ternary(&mut self, expr: &Expr, i: usize, g: usize, t: usize, e: usize) -> Result<(), PmError> {
        let choose = self.checked.info.get(i).map_or(Choose::Both, |x| x.choose);
        let novalue = |x: usize| matches!(expr.nodes()[x], Node::NoValue(_));
        let gn = numval(&self.state[g].cur);
        if gn <= 0 {
            let v = if gn < 0 { Err(PmError::from_code(gn)) } else { Ok(Vec::new()) };
            return self.set(i, v);
        }
        for (x, bound) in [(t, choose != Choose::Else), (e, choose != Choose::Then)] {
            let n = numval(&self.state[x].cur);
            if bound && !novalue(x) && n <= 0 {
                let v = if n < 0 { Err(PmError::from_code(n)) } else { Ok(Vec::new()) };
                return self.set(i, v);
            }
        }
        let ty = self.desc_of(i).ty;
        let gt = self.desc_of(g).ty;
        let mut out = self.out_buf(i, 0);
        let (tv, ev, gv) = (self.vals(t), self.vals(e), self.vals(g));
        let (count, inst_from) = match choose {
            Choose::Then => (tv.len(), tv),
            Choose::Else => (ev.len(), ev),
            Choose::Both => {
                let from = if self.desc_of(t).indom == InDom::NULL && self.desc_of(e).indom != InDom::NULL || novalue(t)
                {
                    ev
                } else {
                    tv
                };
                (tv.len().max(ev.len()), from)
            }
        };
        out.reserve(count);
        let mut pick_then = choose != Choose::Else;
        for k in 0..count {
            if choose == Choose::Both {
                if let Some((_, gv)) = gv.get(k) {
                    pick_then = as_f64(gv, gt) != 0.0;
                }
            }
            let (pick, is_novalue) = if pick_then { (tv, novalue(t)) } else { (ev, novalue(e)) };
            if is_novalue {
                continue;
            }
            let Some((_, v)) = pick.get(k).or_else(|| pick.first()) else { continue };
            let inst = inst_from.get(k).or_else(|| inst_from.first()).map_or(PM_IN_NULL, |p| p.0);
            out.push((inst, convert(v, ty)));
        }
        self.set(i, Ok(out))
    }

    pub(super) fn binary(&mut self, i: usize, op: BinOp, l: usize, r: usize) -> Result<(), PmError> {
        let (ld, rd) = (self.desc_of(l), self.desc_of(r));
        let ty = self.desc_of(i).ty;
        let mut out = self.out_buf(i, 0);
        let (lv, rv) = (self.vals(l), self.vals(r));
        if lv.is_empty() || rv.is_empty() {
            return self.set(i, Ok(out));
        }
        let (lind, rind) = (ld.indom != InDom::NULL, rd.indom != InDom::NULL);
        let n = if !lind {
            rv.len()
        } else if !rind {
            lv.len()
        } else {
            lv.len().min(rv.len())
        };
        let info = |x: usize| self.checked.info.get(x).map_or((1, 1), |f| (f.mul, f.div));
        let (lscale, rscale) = (info(l), info(r));
        let relational = !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div);
        out.reserve(n);
        let (mut a, mut b) = (0usize, 0usize);
        while out.len() < n {
            let (Some(x), Some(y)) = (lv.get(a), rv.get(b)) else { break };
            let mut y = y;
            if lind && rind && x.0 != y.0 {
                let traced = self.traces_matching(&[l, r]);
                if traced {
                    let k = out.len();
                    self.trace.write(format_args!(
                        "eval_expr: {}: inst[{k}] mismatch left [{a}]={} right [{b}]={}\n",
                        op.node_name(),
                        x.0,
                        y.0
                    ));
                }
                match rv.iter().position(|v| v.0 == x.0) {
                    Some(p) => {
                        if traced {
                            self.trace.write(format_args!("eval_expr: recover @ right [{p}]={}\n", rv[p].0));
                        }
                        b = p;
                        y = &rv[p];
                    }
                    None => {
                        a += 1;
                        b = 0;
                        continue;
                    }
                }
            }
            let inst = if lind { x.0 } else { y.0 };
            if !relational && ty == MetricType::DOUBLE {
                // (the most common case, made in place: an AtomValue made
                // apart and then moved into the list costs more than the
                // arithmetic)
                let (p, q) = (scaled_f64(&x.1, ld.ty, lscale), scaled_f64(&y.1, rd.ty, rscale));
                out.push((inst, AtomValue::Double(arith_f64(op, p, q))));
            } else {
                let v = if relational {
                    let pt = promote(ld.ty, rd.ty);
                    let (p, q) = (scaled(&x.1, ld.ty, pt, lscale), scaled(&y.1, rd.ty, pt, rscale));
                    AtomValue::U32(u32::from(compare(pt, op, &p, &q)))
                } else {
                    let (p, q) = (scaled(&x.1, ld.ty, ty, lscale), scaled(&y.1, rd.ty, ty, rscale));
                    arith(ty, op, &p, &q)
                };
                out.push((inst, v));
            }
            if lind {
                a += 1;
                if rind {
                    b += 1;
                    if b >= rv.len() {
                        b = 0;
                    }
                }
            } else if rind {
                b += 1;
            }
        }
        self.set(i, Ok(out))
    }
}
