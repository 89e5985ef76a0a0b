//! /proc/interrupts (`kernel.all.interrupts.*`, `kernel.percpu.interrupts`,
//! `kernel.percpu.intr`) and /proc/softirqs (`kernel.all.softirqs.total`,
//! `kernel.percpu.softirqs`, `kernel.percpu.sirq`).

use super::area::{saved_cache, Area, Reader};
use super::Options;
use crate::cache::InstCache;
use crate::scan::lines;
use crate::MetricDef;
use pcp_core::support::strtod::strtoull_prefix;
use pcp_core::{AtomValue, PmError};
use std::collections::HashMap;

/// /proc/interrupts (`CLUSTER_INTERRUPTS`).
const INTERRUPTS: u32 = 4;
/// /proc/softirqs, per CPU (`CLUSTER_SOFTIRQS`) and totals
/// (`CLUSTER_SOFTIRQS_TOTAL`).
const SOFTIRQS: u32 = 63;
const SOFTIRQS_TOTAL: u32 = 82;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 3] = [INTERRUPTS, SOFTIRQS, SOFTIRQS_TOTAL];

/// Interrupt lines, and lines per CPU (`LINE::cpuN`); soft interrupts,
/// and soft interrupts per CPU.
const INTERRUPT_INDOM: u32 = 4;
const INTERRUPT_CPU_INDOM: u32 = 40;
const SOFTIRQ_INDOM: u32 = 36;
const SOFTIRQ_CPU_INDOM: u32 = 41;
/// The instance domains kept here.
pub(super) const INDOMS: [u32; 4] = [INTERRUPT_INDOM, INTERRUPT_CPU_INDOM, SOFTIRQ_INDOM, SOFTIRQ_CPU_INDOM];

/// One of the two files as last read: rows and rows per CPU, numbered as
/// the PMDA numbers them, with their counts, and the sums per CPU.
#[derive(Clone, Debug, Default)]
struct Table {
    rows: InstCache,
    cells: InstCache,
    /// Per row instance: its total, and its text (the first seen).
    totals: HashMap<i32, u64>,
    labels: HashMap<i32, String>,
    /// Per cell instance: the CPU and the count.
    values: HashMap<i32, (u32, u64)>,
    /// Per CPU (by the PMDA's column mapping): the sum of its counts.
    per_cpu: Vec<u64>,
    /// The CPU numbers of the header's columns.
    columns: Vec<u32>,
}

/// The CPU numbers the header line names (`CPU0 CPU1 ...`), at most
/// `ncpus` of them: each run of digits.
fn header_cpus(line: &[u8], ncpus: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() && out.len() < ncpus as usize {
        if !line[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let (v, n) = strtoull_prefix(&line[i..], 10);
        if n == 0 {
            break;
        }
        out.push(v as u32);
        i += n;
    }
    out
}

/// A row's name (its first word, less a final `:` or `_`) and the rest.
fn row_name(line: &[u8]) -> (&[u8], &[u8]) {
    let start = line.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(line.len());
    let len = line[start..].iter().position(u8::is_ascii_whitespace).unwrap_or(line.len() - start);
    let mut name = &line[start..start + len];
    let mut rest_at = start + len + 1;
    if let Some(b':' | b'_') = name.last() {
        name = &name[..name.len() - 1];
        rest_at -= 1;
    }
    (name, line.get(rest_at..).unwrap_or_default())
}

/// A row's text as the PMDA keeps it: white space at the start left out,
/// each run of it inside cut to its last character, none at the end.
fn row_text(s: &[u8]) -> String {
    let s = &s[s.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(s.len())..];
    let mut out = Vec::with_capacity(s.len());
    for (i, &b) in s.iter().enumerate() {
        if b.is_ascii_whitespace() && s.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
            continue;
        }
        out.push(b);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `sscanf(line, "KEY %u", &v)`: the count after a row's name.
fn keyed(line: &[u8], key: &[u8]) -> Option<u32> {
    let rest = line.strip_prefix(key)?;
    crate::scan::Scan::new(rest).u32()
}

impl Table {
    fn new(opts: &Options, rows: u32, cells: u32) -> Table {
        Table { rows: saved_cache(opts, rows), cells: saved_cache(opts, cells), ..Table::default() }
    }

    /// The CPU a column stands for (the PMDA's `column_to_cpuid`).
    fn cpu_of(&self, column: usize) -> usize {
        if self.columns.get(column) == Some(&(column as u32)) {
            return column;
        }
        self.columns.iter().position(|&c| c as usize == column).unwrap_or(0)
    }

    /// Start a refresh: nothing present, the sums cleared.
    fn begin(&mut self, ncpus: u32) {
        self.rows.deactivate_all();
        self.cells.deactivate_all();
        self.per_cpu.clear();
        self.per_cpu.resize(ncpus as usize, 0);
    }

    /// Read the header; `false` for a file without one.
    fn header(&mut self, line: Option<&[u8]>, ncpus: u32) -> bool {
        match line {
            Some(l) => {
                self.columns = header_cpus(l, ncpus);
                true
            }
            None => false,
        }
    }

    /// One row: its counts by column, as `strtoul` reads them (a column
    /// with no number is a 0 when white space follows where it stopped).
    fn row(&mut self, line: &[u8]) {
        let (name, mut s) = row_name(line);
        let name = String::from_utf8_lossy(name).into_owned();
        let mut total = 0u64;
        let mut end = None;
        for column in 0..self.columns.len() {
            let (v, n) = strtoull_prefix(s, 10);
            let after = &s[n..];
            end = Some(after);
            // (the line end counts as white space: the PMDA reads lines with it)
            if !after.first().is_none_or(u8::is_ascii_whitespace) {
                continue;
            }
            s = after;
            let cpu = self.cpu_of(column);
            if let Some(sum) = self.per_cpu.get_mut(cpu) {
                *sum = sum.wrapping_add(v);
            }
            if let Some(inst) = self.cells.add(&format!("{name}::cpu{cpu}")) {
                self.values.insert(inst, (cpu as u32, v));
            }
            total = total.wrapping_add(v);
        }
        if let Some(inst) = self.rows.add(&name) {
            self.totals.insert(inst, total);
            if let Some(end) = end {
                self.labels.entry(inst).or_insert_with(|| row_text(end));
            }
        }
    }

    fn total(&self, inst: i32) -> Result<Option<AtomValue>, PmError> {
        self.rows.name(inst).ok_or(PmError::PM_ERR_INST)?;
        Ok(self.totals.get(&inst).map(|t| AtomValue::U64(*t)))
    }

    fn cell(&self, inst: i32) -> Result<Option<AtomValue>, PmError> {
        self.cells.name(inst).ok_or(PmError::PM_ERR_INST)?;
        Ok(self.values.get(&inst).map(|v| AtomValue::U32(v.1 as u32)))
    }

    fn cpu_sum(&self, inst: i32, ncpus: u32) -> Result<Option<AtomValue>, PmError> {
        let cpu = usize::try_from(inst).ok().filter(|&i| i < ncpus as usize).ok_or(PmError::PM_ERR_INST)?;
        Ok(Some(AtomValue::U64(self.per_cpu.get(self.cpu_of(cpu)).copied().unwrap_or(0))))
    }
}

#[derive(Clone, Debug)]
struct Interrupts {
    irq: Table,
    softirq: Table,
    errors: u32,
    missed: u32,
    ncpus: u32,
}

/// The area, new, with the instance numbering the PMDA saved.
pub(super) fn new(opts: &Options) -> Box<dyn Area> {
    Box::new(Interrupts {
        irq: Table::new(opts, INTERRUPT_INDOM, INTERRUPT_CPU_INDOM),
        softirq: Table::new(opts, SOFTIRQ_INDOM, SOFTIRQ_CPU_INDOM),
        errors: 0,
        missed: 0,
        ncpus: 0,
    })
}

impl Interrupts {
    fn read_interrupts(&mut self, text: &[u8]) {
        let mut ls = lines(text);
        if !self.irq.header(ls.next(), self.ncpus) {
            return;
        }
        for line in ls {
            if let Some(v) = keyed(line, b"ERR:").or_else(|| keyed(line, b"Err:")).or_else(|| keyed(line, b"BAD:")) {
                self.errors = v;
            } else if let Some(v) = keyed(line, b"MIS:") {
                self.missed = v;
            } else {
                self.irq.row(line);
            }
        }
    }

    fn read_softirqs(&mut self, text: &[u8]) {
        let mut ls = lines(text);
        if !self.softirq.header(ls.next(), self.ncpus) {
            return;
        }
        for line in ls {
            self.softirq.row(line);
        }
    }
}

impl Area for Interrupts {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        self.ncpus = rd.ncpus;
        if clusters.contains(&INTERRUPTS) {
            self.irq.begin(rd.ncpus);
            let text = rd.files.read("/proc/interrupts").unwrap_or_default();
            self.read_interrupts(&text);
        }
        if clusters.contains(&SOFTIRQS) || clusters.contains(&SOFTIRQS_TOTAL) {
            self.softirq.begin(rd.ncpus);
            let text = rd.files.read("/proc/softirqs").unwrap_or_default();
            self.read_softirqs(&text);
        }
    }

    fn value(&self, def: &MetricDef, inst: i32) -> Result<Option<AtomValue>, PmError> {
        match (def.pmid.cluster(), def.pmid.item()) {
            (INTERRUPTS, 0) => self.irq.total(inst),
            (INTERRUPTS, 1) => self.irq.cell(inst),
            (INTERRUPTS, 2) => Ok(Some(AtomValue::U32(self.missed))),
            (INTERRUPTS, 3) => Ok(Some(AtomValue::U32(self.errors))),
            (INTERRUPTS, 4) => self.irq.cpu_sum(inst, self.ncpus),
            (SOFTIRQS, 0) => self.softirq.cell(inst),
            (SOFTIRQS, 1) => self.softirq.cpu_sum(inst, self.ncpus),
            (SOFTIRQS_TOTAL, 0) => self.softirq.total(inst),
            _ => Err(PmError::PM_ERR_PMID),
        }
    }

    fn instances(&self, serial: u32) -> Vec<(i32, &str)> {
        match serial {
            INTERRUPT_INDOM => self.irq.rows.active().collect(),
            INTERRUPT_CPU_INDOM => self.irq.cells.active().collect(),
            SOFTIRQ_INDOM => self.softirq.rows.active().collect(),
            SOFTIRQ_CPU_INDOM => self.softirq.cells.active().collect(),
            _ => Vec::new(),
        }
    }

    fn instance_label(&self, serial: u32, inst: i32, name: &str) -> Option<String> {
        let row = name.split("::").next().unwrap_or(name);
        match serial {
            INTERRUPT_INDOM => Some(format!(r#"{{"irq":"{name}","irqtext":"{}"}}"#, self.irq.labels.get(&inst)?)),
            INTERRUPT_CPU_INDOM => {
                let cpu = self.irq.values.get(&inst)?.0;
                let text = self.irq.labels.get(&self.irq.rows.lookup(row)?)?;
                Some(format!(r#"{{"cpu":{cpu},"irq":"{row}","irqtext":"{text}"}}"#))
            }
            SOFTIRQ_CPU_INDOM => {
                let cpu = self.softirq.values.get(&inst)?.0;
                Some(format!(r#"{{"cpu":{cpu}, "softirq":"{row}"}}"#))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTERRUPTS_TEXT: &[u8] = b"           CPU0       CPU1       \n\
         24:          1          0  IO-APIC   5-edge      ACPI:Ged\n\
        NMI:          0          3   Non-maskable interrupts\n\
        ERR:          7\n\
        MIS:          2\n\
        PIN:          5\n";

    fn area() -> Interrupts {
        let opts = Options {
            hz: 100,
            page_size: 4096,
            ncpus: Some(2),
            pmda_cache_dir: None,
            mdadm: crate::MDADM.into(),
            single_node: false,
        };
        let mut a = Interrupts {
            irq: Table::new(&opts, 4, 40),
            softirq: Table::new(&opts, 36, 41),
            errors: 0,
            missed: 0,
            ncpus: 2,
        };
        a.irq.begin(2);
        a.softirq.begin(2);
        a
    }

    #[test]
    fn interrupt_lines_count_per_cpu_as_the_pmda_does() {
        let mut a = area();
        a.read_interrupts(INTERRUPTS_TEXT);
        assert_eq!(a.instances(4), [(0, "24"), (1, "NMI"), (2, "PIN")]);
        assert_eq!(
            a.instances(40),
            [(0, "24::cpu0"), (1, "24::cpu1"), (2, "NMI::cpu0"), (3, "NMI::cpu1"), (4, "PIN::cpu0"), (5, "PIN::cpu1")]
        );
        assert_eq!((a.errors, a.missed), (7, 2));
        assert_eq!(a.irq.totals[&1], 3);
        // a row short of columns: the missing count reads as 0
        assert_eq!(a.irq.values[&5], (1, 0));
        assert_eq!(a.irq.per_cpu, [6, 3]);
        assert_eq!(a.irq.labels[&0], "IO-APIC 5-edge ACPI:Ged");
        assert_eq!(
            a.instance_label(40, 3, "NMI::cpu1").as_deref(),
            Some(r#"{"cpu":1,"irq":"NMI","irqtext":"Non-maskable interrupts"}"#)
        );
    }

    #[test]
    fn damaged_files_give_no_panic() {
        for text in [&b""[..], b"\n", b"CPU0\n:\n\xff\n   \n", b"CPU0 CPU1\n 1: 18446744073709551616 -1 x\n"] {
            let mut a = area();
            a.read_interrupts(text);
            a.read_softirqs(text);
        }
        assert_eq!(row_text(b"  a   b\t c  "), "a b c");
        assert_eq!(row_name(b"  HI:  1"), (&b"HI"[..], &b"  1"[..]));
    }
}
