//! The `-Dpdu` and `-Dfetch` traces of a host context against the
//! in-memory fake pmcd (tests/fake_pmcd): each PDU as libpcp's
//! `__pmXmitPDU` and `__pmGetPDU` print it, the results pmcd sends and
//! `pmFetch` returns as `__pmPrintResult` prints them, and nothing of the
//! requests the dumps themselves make.

mod fake_pmcd;

use fake_pmcd::{FakePmcd, Quirk};
use pcp::debug::{DebugOptions, Trace};
use pcp::host::{BoxStream, Connector, HostSource};
use pcp::transport::{PmcdConnection, Timeouts};
use pcp::Context;
use pcp_core::PmId;
use pcp_pdu::handshake::ClientOptions;
use std::sync::Arc;

const COLOUR: PmId = PmId::new(29, 0, 5);
const ONE: PmId = PmId::new(29, 0, 10);

fn trace(spec: &str) -> Trace {
    Trace::new(DebugOptions::parse(spec.as_bytes()).unwrap())
}

/// A connector to a fresh fake pmcd whose handshake is traced into `t`.
fn connector(t: &Trace) -> Connector {
    let t = t.clone();
    Arc::new(move || {
        let (client, server) = fake_pmcd::pair();
        std::thread::spawn(move || FakePmcd::new(Quirk::None).serve(server));
        let opts = ClientOptions { pid: 77, local: true, ..Default::default() };
        PmcdConnection::handshake_traced(Box::new(client) as BoxStream, &opts, Timeouts::default(), &t)
    })
}

/// The trace's lines, each PDU's first line and its word lines apart.
fn lines(t: &Trace) -> Vec<String> {
    String::from_utf8(t.take()).unwrap().lines().map(str::to_string).collect()
}

/// The lines naming PDUs, without the process id.
fn pdu_lines(lines: &[String]) -> Vec<String> {
    lines.iter().filter(|l| l.starts_with('[')).map(|l| l[l.find(']').unwrap() + 1..].to_string()).collect()
}

#[test]
fn the_handshake_and_each_exchange_are_traced_word_by_word() {
    let t = trace("pdu");
    let h = HostSource::with_connector("fakehost", connector(&t)).unwrap();
    let got = lines(&t);
    let pid = std::process::id();
    // pmcd's greeting, then the credentials (a stream without a file
    // descriptor shows -1)
    assert!(got[0].starts_with(&format!("[{pid}]pmGetPDU: ERROR fd=-1 len=")), "{got:?}");
    assert!(got[1].starts_with("000:       ") && got[1].contains("     7000 "), "{got:?}");
    assert_eq!(got[2], format!("[{pid}]pmXmitPDU: CREDS fd=-1 len=20"));
    // header words as numbers, body words as they lie in memory
    let creds_word = |w: u32| format!("{:8x}", u32::from_ne_bytes(w.to_be_bytes()));
    assert!(got[3].starts_with("000:       14     700c       4d "), "{got:?}");
    assert!(got[3].ends_with(' ') && got[3].contains(&creds_word(1)), "{got:?}");

    // a descriptor request and its answer
    let mut h = h;
    pcp::source::MetricSource::set_trace(&mut h, &t);
    h.lookup_desc(ONE).unwrap();
    let got = lines(&t);
    assert_eq!(pdu_lines(&got), ["pmXmitPDU: DESC_REQ fd=-1 len=16", "pmGetPDU: DESC fd=-1 len=32 from=0"]);
    assert_eq!(got[1], format!("000:       10     7004        0 {} ", creds_word(ONE.0)));
    assert_eq!(got.len(), 4);
}

#[test]
fn a_fetch_dumps_what_pmcd_sent_and_what_pmfetch_returns() {
    let t = trace("pdu,fetch");
    let mut ctx = Context::with_host(HostSource::with_connector("fakehost", connector(&t)).unwrap());
    ctx.set_trace(t.clone());
    t.take();
    ctx.fetch(&[COLOUR]).unwrap();
    let got = lines(&t);
    let text: Vec<&str> = got.iter().filter(|l| !l.starts_with(|c: char| c.is_ascii_digit())).map(|l| &**l).collect();
    // the profile goes first; the result is dumped as it arrives, with
    // the names and instances found by requests that are not traced
    assert_eq!(text[0].split_once(']').unwrap().1, "pmXmitPDU: PROFILE fd=-1 len=28");
    assert!(text[1].contains("FETCH fd=-1 len=32"), "{text:?}");
    assert!(text[2].contains("RESULT fd=-1 len="), "{text:?}");
    let dump = |at: usize| {
        assert!(text[at].starts_with("__pmResult dump from 0x"), "{text:?}");
        assert!(text[at].contains(" timestamp: 1700000000.123456789 "), "{text:?}");
        assert!(text[at].ends_with(".123456789 numpmid: 1"), "{text:?}");
        assert_eq!(
            text[at + 1..at + 5],
            [
                "  29.0.5 (sample.colour): numval: 3 valfmt: 0 vlist[]:",
                "    inst [0 or \"red\"] value 101",
                "    inst [1 or \"green\"] value 202",
                "    inst [2 or \"blue\"] value 303",
            ]
        );
    };
    dump(3);
    assert_eq!(text[8], "pmFetch returns ...");
    dump(9);
    assert_eq!(text.len(), 14, "{text:?}");

    // after the dump, requests are traced again
    ctx.lookup_desc(ONE).unwrap();
    assert_eq!(pdu_lines(&lines(&t)).len(), 2);
}

#[test]
fn fetch_alone_dumps_singular_values_and_errors() {
    let t = trace("fetch");
    let mut ctx = Context::with_host(HostSource::with_connector("fakehost", connector(&t)).unwrap());
    ctx.set_trace(t.clone());
    ctx.fetch(&[ONE, PmId::new(29, 9, 9)]).unwrap();
    let got = lines(&t);
    assert_eq!(got[0], "pmFetch returns ...");
    assert!(got[1].ends_with(" numpmid: 2"), "{got:?}");
    assert_eq!(
        got[2..],
        [
            "  29.0.10 (sample.long.one): numval: 1 valfmt: 0 vlist[]:",
            "   value 1",
            "  29.9.9 (<noname>): Unknown or illegal metric identifier",
        ]
    );
    assert_eq!(ctx.fetch(&[]).err(), Some(pcp_core::PmError::PM_ERR_TOOSMALL));
    assert_eq!(lines(&t), ["pmFetch returns ...", "Error: Insufficient elements in list"]);
}

#[test]
fn the_handshake_traces_the_ipc_table_and_credentials_under_dcontext() {
    let t = trace("context");
    let _h = HostSource::with_connector("fakehost", connector(&t)).unwrap();
    let info = pcp_pdu::handshake::PduInfo::pmcd();
    let got = lines(&t);
    // a stream without a file descriptor shows -1, which no table holds
    assert_eq!(
        got,
        [
            "__pmSetSocketIPC: fd=-1".to_string(),
            "IPC table fd(PDU version):".to_string(),
            format!(
                "__pmDecodeXtendError: got error PDU (code=0, datum={}, version=2)",
                i32::from_ne_bytes(info.to_u32().to_be_bytes())
            ),
            format!("__pmSetFeaturesIPC: fd=-1 version=2 features={}", info.features),
            "IPC table fd(PDU version):".to_string(),
            "__pmSendCreds: #0 = 1020000".to_string(),
        ]
    );
}

#[test]
fn a_store_traces_its_context_and_pmcds_error_pdu_under_dcontext() {
    use pcp_core::{FetchResult, InstValue, PmError, Timestamp, Value, ValueSet};
    let t = trace("context");
    let mut ctx = Context::with_host(HostSource::with_connector("fakehost", connector(&Trace::off())).unwrap());
    ctx.set_trace(t.clone());
    let set = ValueSet { pmid: ONE, values: Ok(vec![InstValue { inst: -1, value: Value::Insitu(5) }]) };
    let refused = ctx.store(&FetchResult { timestamp: Timestamp::default(), sets: vec![set] });
    assert_eq!(refused, Err(PmError::PM_ERR_PERMISSION));
    let code = PmError::PM_ERR_PERMISSION.code();
    assert_eq!(
        lines(&t),
        [
            "pmWhichContext() -> 0, cur=0".to_string(),
            format!("__pmDecodeError: got error PDU (code={code}, fromversion=2)")
        ]
    );
}

#[test]
fn an_error_pdu_answering_any_request_is_traced_under_dcontext() {
    use pcp_core::PmError;
    let t = trace("context");
    let mut ctx = Context::with_host(HostSource::with_connector("fakehost", connector(&Trace::off())).unwrap());
    ctx.set_trace(t.clone());
    assert!(ctx.lookup_names(&["no.such.metric"]).is_err());
    let code = PmError::PM_ERR_NAME.code();
    let got = lines(&t);
    assert_eq!(got.last(), Some(&format!("__pmDecodeError: got error PDU (code={code}, fromversion=2)")), "{got:?}");
    assert_eq!(got.iter().filter(|l| l.starts_with("__pmDecodeError")).count(), 1, "{got:?}");
}

#[test]
fn profile_changes_look_at_the_context_under_dcontext() {
    let t = trace("context");
    let mut ctx = Context::with_host(HostSource::with_connector("fakehost", connector(&Trace::off())).unwrap());
    ctx.set_trace(t.clone());
    let indom = pcp_core::InDom::new(29, 1);
    ctx.del_profile(indom, &[]).unwrap();
    ctx.add_profile(indom, &[1]).unwrap();
    assert_eq!(lines(&t), ["pmWhichContext() -> 0, cur=0", "pmWhichContext() -> 0, cur=0"]);
    // instances with no instance domain are refused before the look
    assert!(ctx.add_profile(pcp_core::InDom::NULL, &[1]).is_err());
    assert!(lines(&t).is_empty());
}

#[test]
fn a_host_name_that_does_not_resolve_is_reported_as_libpcp_reports_it() {
    // (.invalid names never resolve; without a resolver the reason is
    // "lookup failure" rather than "unknown host")
    let t = trace("context");
    let spec = pcp::host::HostSpec::parse("nohost.invalid:44321").unwrap();
    let e = pcp::host::connect_spec_traced(&spec, Timeouts::default(), 0, &t).err().unwrap();
    assert_eq!(e.code(), -113);
    let got = lines(&t);
    assert!(got[0].starts_with("auxconnect.c:__pmAuxConnectPMCDPort(nohost.invalid, 44321) : hosterror="), "{got:?}");
    assert!(got.iter().all(|l| !l.starts_with("__pmSetSocketIPC")), "{got:?}");
    assert!(got[1].starts_with("__pmConnectPMCD(nohost.invalid"), "{got:?}");
}
