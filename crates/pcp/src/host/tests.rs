use super::spec::negotiate_proxy;
use super::*;

/// A pmproxy stand-in that answers the version line with `reply` and
/// hands back the line the client sends after it.
fn fake_proxy(reply: &'static [u8]) -> (u16, std::thread::JoinHandle<Vec<u8>>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let t = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut hello = [0u8; 17];
        s.read_exact(&mut hello).unwrap();
        assert_eq!(&hello, b"pmproxy-client 1\n");
        s.write_all(reply).unwrap();
        // (nothing more comes from the proxy)
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        rest
    });
    (port, t)
}

#[test]
fn the_proxy_is_told_where_pmcd_is() {
    let (port, t) = fake_proxy(b"pmproxy-server 1\n");
    let mut c = transport::connect_port("127.0.0.1", port, std::time::Duration::from_secs(5)).unwrap();
    negotiate_proxy(&mut c, "box", 4321, Some(std::time::Duration::from_secs(5))).unwrap();
    drop(c);
    assert_eq!(t.join().unwrap(), b"box 4321\n");
    // anything else from the proxy is a protocol failure
    for reply in [&b"pmproxy-server 2\n"[..], b"", b"pmproxy-server 1"] {
        let (port, t) = fake_proxy(reply);
        let mut c = transport::connect_port("127.0.0.1", port, std::time::Duration::from_secs(5)).unwrap();
        let got = negotiate_proxy(&mut c, "box", 4321, Some(std::time::Duration::from_secs(5)));
        assert_eq!(got, Err(PmError::PM_ERR_IPC), "{reply:?}");
        drop(c);
        assert_eq!(t.join().unwrap(), b"");
    }
}

#[test]
fn host_specifications_parse_as_libpcp_parses_them() {
    let inet =
        |name: &str, ports: Vec<u16>| HostSpec { name: name.to_string(), ports, kind: HostKind::Inet, proxy: None };
    assert_eq!(HostSpec::parse("localhost"), Ok(inet("localhost", vec![])));
    assert_eq!(HostSpec::parse("box:1,44321"), Ok(inet("box", vec![1, 44321])));
    assert_eq!(HostSpec::parse("[::1]:7"), Ok(inet("::1", vec![7])));
    assert_eq!(HostSpec::parse("pcp://box?compress"), Ok(inet("box", vec![])));
    assert_eq!(HostSpec::parse("local:").map(|s| s.kind), Ok(HostKind::Local));
    assert_eq!(HostSpec::parse("unix:/tmp/s").map(|s| (s.kind, s.name)), Ok((HostKind::Unix, "/tmp/s".into())));
    for bad in ["box:", "box:x", "[::1", "@proxy", "::1", "[::1]x", "local:/s:"] {
        assert_eq!(HostSpec::parse(bad), Err(PmError::PM_ERR_GENERIC), "{bad}");
    }
    // a proxy: the second host (a third goes unused); an empty one
    let via = |spec: &str| HostSpec::parse(spec).unwrap().proxy.map(|p| (p.name, p.ports));
    assert_eq!(via("box@proxy"), Some(("proxy".to_string(), vec![])));
    assert_eq!(via("box:1@proxy:2,3@other"), Some(("proxy".to_string(), vec![2, 3])));
    assert_eq!(via("box@"), Some((String::new(), vec![])));
    assert_eq!(HostSpec::parse("box:1@proxy").unwrap().ports, [1]);
    assert_eq!(HostSpec::parse(""), Err(PmError::PM_ERR_NOTHOST));
    assert_eq!(HostSpec::parse("unix:run/s").map(|s| s.name), Ok("/run/s".into()));
    assert_eq!(HostSpec::parse("pcp:box:7").map(|s| (s.name, s.ports)), Ok(("box".into(), vec![7])));
    let said = |spec: &str| String::from_utf8(HostSpec::parse_reporting(spec).unwrap_err().1.unwrap()).unwrap();
    assert_eq!(said("::1"), "pmNewContext: bad host specification\n::1\n^ -- unexpected terminal character\n");
    assert_eq!(said("a:b:c"), "pmNewContext: bad host specification\na:b:c\n  ^ -- non-numeric port\n");
    assert_eq!(said("box:1,"), "pmNewContext: bad host specification\nbox:1,\n      ^ -- missing port\n");
}

#[test]
fn derived_names_join_the_remote_name_space() {
    assert_eq!(derived_traverse(""), ["event.flags", "event.missed"]);
    assert_eq!(derived_traverse("event"), ["event.flags", "event.missed"]);
    assert!(derived_traverse("even").is_empty());
    let root = derived_children("", ANON.iter().map(|a| a.name)).unwrap();
    assert_eq!((root.len(), root[0].name.as_str(), root[0].leaf), (1, "event", false));
    assert_eq!(derived_children("event", ANON.iter().map(|a| a.name)).unwrap().len(), 2);
    assert_eq!(derived_children("event.flags", ANON.iter().map(|a| a.name)), Ok(Vec::new()));
    assert_eq!(derived_children("sample", ANON.iter().map(|a| a.name)), Err(PmError::PM_ERR_NAME));
    assert_eq!(derived_pmid("event.missed"), Some(PmId::new(511, 0, 2)));
}

#[test]
fn long_name_lists_split_under_pmcds_limit() {
    let name = "x".repeat(60);
    let names: Vec<&str> = std::iter::repeat_n(name.as_str(), 2000).collect();
    let n = names_batch(&names);
    // each name takes its length word and 60 bytes padded to 4
    assert_eq!(n, (NAMES_PDU_LIMIT - 24) / 64);
    let long = "y".repeat(70_000);
    assert_eq!(names_batch(&[long.as_str()]), 1);
}
