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
    pmcd_ports()[0]
}

/// pmcd's ports, in the order a connection tries them
/// (`__pmPMCDAddPorts`): `$PMCD_PORT`, a comma-separated list of numbers
/// as `strtol` reads them in any base; if it is unset, or anything in it
/// is not a number or is negative, 44321 alone. Never empty.
pub fn pmcd_ports() -> Vec<u16> {
    std::env::var("PMCD_PORT").ok().and_then(|v| parse_ports(v.as_bytes())).unwrap_or_else(|| vec![44321])
}

/// The ports pmproxy is tried on when `$PMPROXY_HOST` names it
/// (`__pmProxyAddPorts`): `$PMPROXY_PORT`'s list, else 44322.
pub fn pmproxy_ports() -> Vec<u16> {
    std::env::var("PMPROXY_PORT").ok().and_then(|v| parse_ports(v.as_bytes())).unwrap_or_else(|| vec![44322])
}

fn parse_ports(mut s: &[u8]) -> Option<Vec<u16>> {
    let mut ports = Vec::new();
    loop {
        // strtol(s, &end, 0)
        let (negative, m, used) = pcp_core::support::strtod::strtoint_parts(s, 0);
        let port = if negative { -(m.min(1 << 63) as i128) } else { m.min(1 << 63) as i128 };
        let rest = &s[used..];
        if port < 0 || !(rest.is_empty() || rest[0] == b',') {
            return None;
        }
        // libpcp keeps the port in an int and the socket layer a short
        ports.push(port as i32 as u16);
        match rest.split_first() {
            None => return Some(ports),
            Some((_, after)) => s = after,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmcd_port_lists_read_as_libpcp_reads_them() {
        assert_eq!(parse_ports(b"44321"), Some(vec![44321]));
        assert_eq!(parse_ports(b"1,0x10, 010"), Some(vec![1, 16, 8]));
        assert_eq!(parse_ports(b"1,x"), None);
        assert_eq!(parse_ports(b"-1"), None);
        assert_eq!(parse_ports(b"12a"), None);
        // strtol reads nothing in an empty value: port 0, as libpcp has it
        assert_eq!(parse_ports(b""), Some(vec![0]));
    }
}
