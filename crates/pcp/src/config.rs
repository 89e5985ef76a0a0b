//! PCP's configuration as the environment and `/etc/pcp.conf` give it
//! (`pmGetConfig`): the environment wins, then the file, then PCP's
//! defaults.

use std::path::PathBuf;

/// `pmGetConfig(name)`: the value of a PCP configuration variable.
#[doc(alias = "pmGetConfig")]
pub fn get(name: &str) -> Option<String> {
    if let Ok(v) = std::env::var(name) {
        return Some(v);
    }
    let conf = std::env::var("PCP_CONF").unwrap_or_else(|_| "/etc/pcp.conf".to_string());
    let text = std::fs::read_to_string(conf).ok()?;
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == name).then(|| v.trim().trim_matches('"').to_string())
    })
}

/// `$PCP_VAR_DIR` (default `/var/lib/pcp`).
pub fn var_dir() -> PathBuf {
    get("PCP_VAR_DIR").unwrap_or_else(|| "/var/lib/pcp".to_string()).into()
}

/// `$PCP_RUN_DIR` (default `/run/pcp`), where pmcd's Unix socket lives.
pub fn run_dir() -> PathBuf {
    get("PCP_RUN_DIR").unwrap_or_else(|| "/run/pcp".to_string()).into()
}

/// The default name space: `$PMNS_DEFAULT`, else `$PCP_VAR_DIR/pmns/root`.
#[doc(alias = "PMNS_DEFAULT")]
pub fn default_pmns() -> PathBuf {
    match std::env::var_os("PMNS_DEFAULT") {
        Some(p) => p.into(),
        None => var_dir().join("pmns").join("root"),
    }
}

/// pmcd's port: the first of `$PMCD_PORT` (a comma-separated list), else
/// 44321.
pub fn pmcd_port() -> u16 {
    std::env::var("PMCD_PORT")
        .ok()
        .and_then(|v| v.split(',').next().and_then(|p| p.trim().parse().ok()))
        .unwrap_or(44321)
}
