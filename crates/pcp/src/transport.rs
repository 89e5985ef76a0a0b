//! Reaching pmcd: the connection a host context is made over.
//!
//! Only the connection itself lives here today (so tools report an absent
//! pmcd as PCP's do); the PDU exchange arrives with host contexts.

use crate::config;
use pcp_core::PmError;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

const EHOSTUNREACH: i32 = 113;
const ECONNREFUSED: i32 = 111;

/// A connection to pmcd.
#[derive(Debug)]
pub enum Connection {
    /// Over TCP.
    Tcp(TcpStream),
    /// Over pmcd's Unix domain socket.
    #[cfg(unix)]
    Unix(std::os::unix::net::UnixStream),
}

fn errno_of(e: &std::io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(ECONNREFUSED))
}

/// Connect to pmcd on `host` as libpcp does: `local:` (or `unix:`) tries
/// pmcd's Unix socket first and then TCP on localhost; a host that does not
/// resolve is "No route to host"; otherwise the last address's error.
pub fn connect(host: &str) -> Result<Connection, PmError> {
    let timeout = std::env::var("PMCD_CONNECT_TIMEOUT")
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|t| *t > 0.0)
        .map_or(Duration::from_secs(5), Duration::from_secs_f64);
    let tcp_host = match host {
        "local:" | "unix:" | "localhost:" => {
            #[cfg(unix)]
            if let Ok(s) = std::os::unix::net::UnixStream::connect(config::run_dir().join("pmcd.socket")) {
                return Ok(Connection::Unix(s));
            }
            "localhost"
        }
        h => h,
    };
    let addrs: Vec<_> =
        (tcp_host, config::pmcd_port()).to_socket_addrs().map_err(|_| PmError::from_errno(EHOSTUNREACH))?.collect();
    let mut last = PmError::from_errno(EHOSTUNREACH);
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => return Ok(Connection::Tcp(s)),
            Err(e) => last = errno_of(&e),
        }
    }
    Err(last)
}
