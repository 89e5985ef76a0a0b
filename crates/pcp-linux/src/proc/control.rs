//! The proc PMDA's settings a client reads and stores: `proc.control.*`,
//! `hotproc.control.*` (with the `hotproc.total.*` summaries) and
//! `acct.control.*`, as PCP 6.0.3's PMDA keeps them in a local context.
//!
//! The hotproc predicate starts empty (the PMDA reads it from
//! `$PCP_PMDAS_DIR/proc/hotproc.conf`, which PCP does not install), so no
//! process is "hot", and process accounting starts off: the per-process
//! `hotproc.*` and `acct.*` metrics have no instances, so no values.

use pcp_core::{extract_value, AtomValue, MetricType, PmError, PmResult, Value};

/// `CLUSTER_CONTROL`: `proc.control.*`.
pub(crate) const C_CONTROL: u32 = 10;
/// `CLUSTER_HOTPROC_GLOBAL`: `hotproc.control.*`, `hotproc.total.*`.
pub(crate) const C_HOTPROC_GLOBAL: u32 = 60;
/// `CLUSTER_ACCT`: `acct.*`.
pub(crate) const C_ACCT: u32 = 70;

/// The first `acct.control.*` item; the items before it are per process.
const ACCT_FIRST_CONTROL: u32 = 23;

/// The settings, as the PMDA starts with them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Controls {
    /// `proc.control.perclient.threads` once a client stored it.
    pub(crate) perclient_threads: Option<bool>,
    /// `proc.control.perclient.cgroups` once a client stored it.
    pub(crate) perclient_cgroups: Option<Vec<u8>>,
    /// `hotproc.control.refresh`: seconds between evaluations.
    hotproc_refresh: u32,
    /// `hotproc.control.config`: the predicate's text.
    hotproc_config: Vec<u8>,
    /// `hotproc.control.config_gen`: zero while there is no predicate.
    hotproc_config_gen: u32,
    /// `acct.control.*` items 23 to 28.
    acct: [u64; 6],
}

impl Default for Controls {
    fn default() -> Controls {
        Controls {
            perclient_threads: None,
            perclient_cgroups: None,
            hotproc_refresh: 10,
            hotproc_config: Vec::new(),
            hotproc_config_gen: 0,
            // open_retry_interval, check_acct_interval,
            // file_size_threshold, lifetime, refresh, enable_acct
            acct: [60, 600, 10 * 1024 * 1024, 60, 600, 0],
        }
    }
}

impl Controls {
    /// The value of a singular metric of the hotproc or acct clusters
    /// (`None`: not one of theirs).
    pub(crate) fn value(&self, cluster: u32, item: u32) -> Option<AtomValue> {
        Some(match (cluster, item) {
            (C_HOTPROC_GLOBAL, 1) => AtomValue::U32(self.hotproc_refresh),
            (C_HOTPROC_GLOBAL, 8) => AtomValue::String(self.hotproc_config.clone()),
            (C_HOTPROC_GLOBAL, 9) => AtomValue::U32(self.hotproc_config_gen),
            (C_HOTPROC_GLOBAL, 10) => AtomValue::U32(0),
            // (no evaluation has run: the totals are zero)
            (C_HOTPROC_GLOBAL, 2..=7) => AtomValue::Float(0.0),
            (C_ACCT, 25) => AtomValue::U64(self.acct[2]),
            (C_ACCT, i @ ACCT_FIRST_CONTROL..=28) => {
                AtomValue::U32(self.acct[(i - ACCT_FIRST_CONTROL) as usize] as u32)
            }
            _ => return None,
        })
    }

    /// Store `value` into a hotproc or acct metric as the PMDA does for
    /// a client of user `uid` (only root may). `threads` is
    /// `proc.control.all.threads`, which the source keeps.
    #[doc(alias = "pmStore")]
    pub(crate) fn store(
        &mut self,
        cluster: u32,
        item: u32,
        value: &Value,
        uid: u32,
        threads: &mut bool,
    ) -> PmResult<()> {
        let u32_of = |v: &Value| match extract_value(v, MetricType::U32, MetricType::U32)? {
            AtomValue::U32(n) => Ok(n),
            _ => Err(PmError::PM_ERR_TYPE),
        };
        match cluster {
            C_CONTROL => match item {
                1 => match u32_of(value)? {
                    n @ 0..=1 => *threads = n == 1,
                    _ => return Err(PmError::PM_ERR_BADSTORE),
                },
                2 => match u32_of(value)? {
                    n @ 0..=1 => self.perclient_threads = Some(n == 1),
                    _ => return Err(PmError::PM_ERR_BADSTORE),
                },
                3 => match extract_value(value, MetricType::STRING, MetricType::STRING)? {
                    AtomValue::String(s) if !s.is_empty() => self.perclient_cgroups = Some(s),
                    _ => return Err(PmError::PM_ERR_BADSTORE),
                },
                _ => return Err(PmError::PM_ERR_PERMISSION),
            },
            _ if uid != 0 => return Err(PmError::PM_ERR_PERMISSION),
            C_HOTPROC_GLOBAL => match item {
                1 => self.hotproc_refresh = u32_of(value)?,
                8 => {
                    let AtomValue::String(text) = extract_value(value, MetricType::STRING, MetricType::STRING)? else {
                        return Err(PmError::PM_ERR_TYPE);
                    };
                    self.store_hotproc_config(text)?;
                }
                // (re-reads hotproc.conf, which is not there)
                10 => {
                    u32_of(value)?;
                }
                _ => return Err(PmError::PM_ERR_PERMISSION),
            },
            C_ACCT => match item {
                23 | 24 | 26 => self.acct[(item - ACCT_FIRST_CONTROL) as usize] = u64::from(u32_of(value)?),
                25 => match extract_value(value, MetricType::U64, MetricType::U64)? {
                    // (the PMDA keeps the low 32 bits: it reads the union's
                    // 32-bit member)
                    AtomValue::U64(n) => self.acct[2] = u64::from(n as u32),
                    _ => return Err(PmError::PM_ERR_TYPE),
                },
                27 => match u32_of(value)? {
                    0 => return Err(PmError::PM_ERR_PERMISSION),
                    n => self.acct[4] = u64::from(n),
                },
                // (the PMDA also switches its private accounting file on
                // or off: a local context leaves the system alone)
                28 => self.acct[5] = u64::from(u32_of(value)?),
                _ => return Err(PmError::PM_ERR_PERMISSION),
            },
            _ => return Err(PmError::PM_ERR_PERMISSION),
        }
        Ok(())
    }

    /// `hotproc.control.config`: an empty predicate turns hotproc off;
    /// one the language accepts is the new configuration, as the PMDA
    /// prints it, and a new generation; any other is `PM_ERR_BADSTORE`,
    /// the configuration kept. (This source does not evaluate
    /// predicates: no process becomes hot.)
    fn store_hotproc_config(&mut self, text: Vec<u8>) -> PmResult<()> {
        match super::hotproc::parse(&text) {
            Err(()) => Err(PmError::PM_ERR_BADSTORE),
            Ok(None) => {
                self.hotproc_config.clear();
                self.hotproc_config_gen = 0;
                Ok(())
            }
            Ok(Some(tree)) => {
                self.hotproc_config = tree.into_bytes();
                self.hotproc_config_gen = self.hotproc_config_gen.wrapping_add(1);
                Ok(())
            }
        }
    }
}
