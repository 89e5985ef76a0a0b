//! HostSource against the in-memory fake pmcd (tests/fake_pmcd): every
//! PMAPI service of a host context, libpcp's protocol for each (what is
//! sent, what comes back, how errors and derived metrics are folded in),
//! reconnection with back-off, and many contexts at once.

mod fake_pmcd;

use fake_pmcd::{with_word, FakePmcd, Metric, Quirk, COLOUR_INDOM};
use pcp::context::TextLevel;
use pcp::host::{BoxStream, Connector, HostSource};
use pcp::profile::Profile;
use pcp::transport::{PmcdConnection, Timeouts};
use pcp_core::labels::flags;
use pcp_core::{FetchResult, InDom, InstValue, PmError, PmId, Timestamp, Value, ValueBlock, ValueSet};
use pcp_pdu::handshake::{features, ClientOptions};
use pcp_pdu::Pdu;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const ONE: PmId = PmId::new(29, 0, 10);
const COLOUR: PmId = PmId::new(29, 0, 5);
const WRITE_ME: PmId = PmId::new(29, 0, 14);
const FLAGS: PmId = PmId::new(511, 0, 1);

type Fakes = Arc<Mutex<Vec<JoinHandle<FakePmcd>>>>;

/// A connector that starts a fresh fake (made by `make`) for every
/// connection, and the fakes' threads (each gives its fake back once the
/// client hangs up).
fn fake_connector(make: impl Fn() -> FakePmcd + Send + Sync + 'static) -> (Connector, Fakes) {
    let fakes: Fakes = Arc::default();
    let held = fakes.clone();
    let connector: Connector = Arc::new(move || {
        let (client, server) = fake_pmcd::pair();
        let fake = make();
        held.lock().unwrap().push(std::thread::spawn(move || fake.serve(server)));
        let opts = ClientOptions { pid: 77, local: true, ..Default::default() };
        PmcdConnection::handshake(Box::new(client) as BoxStream, &opts, Timeouts::default())
    });
    (connector, fakes)
}

fn open(make: impl Fn() -> FakePmcd + Send + Sync + 'static) -> (HostSource, Fakes) {
    let (c, fakes) = fake_connector(make);
    (HostSource::with_connector("fakehost", c).unwrap(), fakes)
}

fn fake() -> FakePmcd {
    FakePmcd::new(Quirk::None)
}

/// Close the source and collect what each fake received.
fn finish(h: HostSource, fakes: Fakes) -> Vec<FakePmcd> {
    drop(h);
    let joins: Vec<_> = std::mem::take(&mut *fakes.lock().unwrap());
    joins.into_iter().map(|j| j.join().unwrap()).collect()
}

fn traverse(h: &HostSource, name: &str) -> Result<Vec<String>, PmError> {
    let mut names = Vec::new();
    h.traverse_with(name, |n| names.push(n.to_string())).map(|()| names)
}

#[test]
fn the_name_space_is_pmcds_then_the_derived_metrics() {
    let (h, fakes) = open(fake);
    assert_eq!(
        traverse(&h, "").unwrap(),
        ["sample.long.one", "sample.colour", "sample.long.write_me", "event.flags", "event.missed"]
    );
    assert_eq!(traverse(&h, "sample.long").unwrap(), ["sample.long.one", "sample.long.write_me"]);
    // pmcd knows no "event": the derived metrics answer
    assert_eq!(traverse(&h, "event").unwrap(), ["event.flags", "event.missed"]);
    assert_eq!(traverse(&h, "nope"), Err(PmError::PM_ERR_NAME));

    let kids = |name: &str| h.children(name).map(|c| c.into_iter().map(|c| (c.name, c.leaf)).collect::<Vec<_>>());
    assert_eq!(kids("").unwrap(), [("sample".to_string(), false), ("event".to_string(), false)]);
    assert_eq!(kids("sample").unwrap(), [("long".to_string(), false), ("colour".to_string(), true)]);
    assert_eq!(kids("sample.long.one").unwrap(), []);
    assert_eq!(kids("event").unwrap(), [("flags".to_string(), true), ("missed".to_string(), true)]);
    assert_eq!(kids("event.flags").unwrap(), []);
    assert_eq!(kids("nope"), Err(PmError::PM_ERR_NAME));

    // pmLookupName: the count is pmcd's unless derived metrics resolve
    // every name pmcd did not know
    let (ids, n) = h.lookup_names(&["sample.long.one", "no.such", "event.flags"]).unwrap();
    assert_eq!((ids, n), (vec![ONE, PmId::NULL, FLAGS], 1));
    let (ids, n) = h.lookup_names(&["sample.colour", "event.missed"]).unwrap();
    assert_eq!((ids, n), (vec![COLOUR, PmId::new(511, 0, 2)], 2));
    assert_eq!(h.lookup_names(&["no.such"]), Err(PmError::PM_ERR_NAME));
    assert_eq!(h.lookup_names(&["event.flags"]), Ok((vec![FLAGS], 1)));
    assert_eq!(h.lookup_names(&[]), Err(PmError::PM_ERR_TOOSMALL));

    assert_eq!(h.name_of(ONE).as_deref(), Ok("sample.long.one"));
    assert_eq!(h.names_of(COLOUR), Ok(vec!["sample.colour".to_string()]));
    assert_eq!(h.name_of(PmId::new(511, 0, 2)).as_deref(), Ok("event.missed"));
    assert_eq!(h.name_of(PmId::new(29, 9, 9)), Err(PmError::PM_ERR_PMID));
    assert_eq!(h.names_of(PmId::new(29, 9, 9)), Err(PmError::PM_ERR_PMID));

    let got = finish(h, fakes);
    // every request carried the context's handle; the credentials the pid
    assert_eq!(got[0].received[0].0, 77);
    assert!(got[0].received[1..].iter().all(|(from, _)| *from == 0));
}

#[test]
fn descriptors_follow_the_lookup_desc_error_protocol() {
    let (h, fakes) = open(fake);
    assert_eq!(h.lookup_desc(ONE).map(|d| d.pmid), Ok(ONE));
    assert_eq!(h.lookup_desc(PmId::new(29, 9, 9)), Err(PmError::PM_ERR_PMID));
    assert_eq!(h.lookup_desc(FLAGS).map(|d| d.pmid), Ok(FLAGS));

    // no failures: numpmid
    let (d, n) = h.lookup_descs(&[ONE, COLOUR, WRITE_ME]).unwrap();
    assert_eq!((n, d[1].indom), (3, COLOUR_INDOM));
    // several with failures: how many were found, PM_ID_NULL for the rest
    let (d, n) = h.lookup_descs(&[PmId::new(29, 9, 9), COLOUR]).unwrap();
    assert_eq!((n, d[0].pmid, d[1].pmid), (1, PmId::NULL, COLOUR));
    // one that fails: its error
    assert_eq!(h.lookup_descs(&[PmId::new(29, 9, 9)]), Err(PmError::PM_ERR_PMID));
    // derived metrics are described here, pmcd is not asked about them alone
    let (d, n) = h.lookup_descs(&[ONE, FLAGS]).unwrap();
    assert_eq!((n, d[1].pmid), (2, FLAGS));
    let (d, n) = h.lookup_descs(&[FLAGS]).unwrap();
    assert_eq!((n, d[0].pmid), (1, FLAGS));
    assert_eq!(h.lookup_descs(&[]), Err(PmError::PM_ERR_TOOSMALL));

    let got = finish(h, fakes);
    let batches: Vec<&Vec<PmId>> =
        got[0].received.iter().filter_map(|(_, p)| if let Pdu::DescIds(ids) = p { Some(ids) } else { None }).collect();
    assert_eq!(batches.len(), 4, "one PDU_DESC_IDS a lookup, none for derived metrics alone");
}

#[test]
fn without_bulk_descriptors_each_metric_is_asked_for() {
    let (h, fakes) = open(|| {
        let mut f = fake();
        f.info.features &= !features::DESCS;
        f
    });
    let (d, n) = h.lookup_descs(&[ONE, PmId::new(29, 9, 9), COLOUR]).unwrap();
    assert_eq!((n, d[1].pmid, d[2].pmid), (2, PmId::NULL, COLOUR));
    // one metric: its error, as the man page's protocol has it
    assert_eq!(h.lookup_descs(&[PmId::new(29, 9, 9)]), Err(PmError::PM_ERR_PMID));
    let got = finish(h, fakes);
    let reqs = got[0].received.iter().filter(|(_, p)| matches!(p, Pdu::DescReq(_))).count();
    assert_eq!(reqs, 4);
    assert!(!got[0].received.iter().any(|(_, p)| matches!(p, Pdu::DescIds(_))));
}

#[test]
fn instances_and_help_text() {
    let (h, fakes) = open(fake);
    let (ids, names) = h.get_indom(COLOUR_INDOM).unwrap();
    assert_eq!((ids, names), (vec![0, 1, 2], vec![b"red".to_vec(), b"green".to_vec(), b"blue".to_vec()]));
    assert_eq!(h.name_indom(COLOUR_INDOM, 1), Ok(b"green".to_vec()));
    assert_eq!(h.lookup_indom(COLOUR_INDOM, b"blue"), Ok(2));
    assert_eq!(h.lookup_indom(COLOUR_INDOM, b"mauve"), Err(PmError::PM_ERR_INST));
    assert_eq!(h.get_indom(InDom::new(29, 7)), Err(PmError::PM_ERR_INDOM));
    assert_eq!(h.get_indom(InDom::NULL), Err(PmError::PM_ERR_INDOM));

    let text = |r: Result<Vec<u8>, PmError>| r.map(|t| String::from_utf8(t).unwrap());
    assert_eq!(text(h.lookup_text(ONE, TextLevel::OneLine)).unwrap(), "1 as a 32-bit integer");
    assert_eq!(text(h.lookup_text(ONE, TextLevel::Help)).unwrap(), "This one has the constant value 1.");
    // no full help: the one-line text, asked for again
    assert_eq!(text(h.lookup_text(COLOUR, TextLevel::Help)).unwrap(), "Metrics with a \"saw-tooth\" trend over time");
    assert_eq!(h.lookup_text(WRITE_ME, TextLevel::Help), Err(PmError::PM_ERR_TEXT));
    assert_eq!(text(h.lookup_indom_text(COLOUR_INDOM, TextLevel::Help)).unwrap(), "Colours");
    assert!(text(h.lookup_text(FLAGS, TextLevel::Help)).unwrap().starts_with("An anonymous derived metric"));
    assert_eq!(h.lookup_text(PmId::new(511, 0, 9), TextLevel::OneLine), Err(PmError::PM_ERR_PMID));

    let got = finish(h, fakes);
    let kinds: Vec<i32> =
        got[0].received.iter().filter_map(|(_, p)| if let Pdu::TextReq(q) = p { Some(q.kind) } else { None }).collect();
    // ONELINE|PMID, HELP|PMID, HELP then ONELINE, HELP then ONELINE,
    // indom HELP then ONELINE; the derived metric's text is not asked for
    assert_eq!(kinds, [5, 6, 6, 5, 6, 5, 10, 9]);
}

#[test]
fn labels_at_every_level() {
    let (h, fakes) = open(fake);
    let mut profile = Profile::default();
    let json = |sets: Vec<pcp_core::labels::LabelSet>| {
        sets.into_iter().map(|s| (s.inst, String::from_utf8(s.json).unwrap())).collect::<Vec<_>>()
    };
    assert_eq!(
        json(h.labels(flags::CONTEXT, PmId::NULL.0, &profile).unwrap()),
        [(-1, fake_pmcd::CONTEXT_LABELS.into())]
    );
    assert_eq!(json(h.labels(flags::DOMAIN, 29, &profile).unwrap()), [(-1, fake_pmcd::DOMAIN_LABELS.into())]);
    assert_eq!(json(h.labels(flags::INDOM, COLOUR_INDOM.0, &profile).unwrap()), [(-1, fake_pmcd::INDOM_LABELS.into())]);
    assert_eq!(json(h.labels(flags::CLUSTER, ONE.0, &profile).unwrap()), [(-1, fake_pmcd::CLUSTER_LABELS.into())]);
    assert_eq!(json(h.labels(flags::ITEM, ONE.0, &profile).unwrap()), []);
    assert_eq!(h.labels(flags::INSTANCES, COLOUR_INDOM.0, &profile).unwrap().len(), 3);
    // instance labels follow the profile, which is sent first when changed
    profile.add(COLOUR_INDOM, &[2]).unwrap();
    assert_eq!(
        json(h.labels(flags::INSTANCES, COLOUR_INDOM.0, &profile).unwrap()),
        [(2, r#"{"colour":"blue"}"#.into())]
    );
    assert_eq!(h.labels(flags::INSTANCES, COLOUR_INDOM.0, &profile).unwrap().len(), 1);
    let got = finish(h, fakes);
    let kinds: Vec<&str> = got[0]
        .received
        .iter()
        .filter_map(|(_, p)| match p {
            Pdu::Profile(_) => Some("profile"),
            Pdu::LabelReq(_) => Some("labels"),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        ["labels", "labels", "labels", "labels", "labels", "profile", "labels", "profile", "labels", "labels"]
    );

    let (h, _fakes) = open(|| {
        let mut f = fake();
        f.info.features &= !features::LABELS;
        f
    });
    assert_eq!(h.labels(flags::CONTEXT, PmId::NULL.0, &Profile::default()), Err(PmError::PM_ERR_NOLABELS));
}

fn values(r: &FetchResult, i: usize) -> Vec<(i32, i32)> {
    r.sets[i]
        .values
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| match v.value {
            Value::Insitu(l) => (v.inst, l),
            Value::Block(_) => (v.inst, i32::MIN),
        })
        .collect()
}

#[test]
fn fetches_send_the_profile_only_when_it_changed() {
    let (h, fakes) = open(fake);
    let mut profile = Profile::default();
    let (r, changed) = h.fetch(&[ONE, COLOUR, FLAGS], &profile).unwrap();
    assert_eq!(changed, 0);
    assert_eq!(values(&r, 0), [(-1, 1)]);
    assert_eq!(values(&r, 1).len(), 3);
    // a derived metric without operands has no values
    assert_eq!(r.sets[2].values, Ok(Vec::new()));
    h.fetch(&[COLOUR], &profile).unwrap();
    profile.add(COLOUR_INDOM, &[1]).unwrap();
    let (r, _) = h.fetch(&[COLOUR], &profile).unwrap();
    assert_eq!(values(&r, 0), [(1, 202)]);
    h.fetch(&[COLOUR], &profile).unwrap();
    assert_eq!(h.fetch(&[], &profile).err(), Some(PmError::PM_ERR_TOOSMALL));
    let counts = h.pdu_counts();
    let got = finish(h, fakes);
    let order: Vec<&str> = got[0]
        .received
        .iter()
        .map(|(_, p)| match p {
            Pdu::Profile(_) => "profile",
            Pdu::HighResFetch(_) => "fetch",
            Pdu::Creds(_) => "creds",
            _ => "other",
        })
        .collect();
    assert_eq!(order, ["creds", "profile", "fetch", "fetch", "profile", "fetch", "fetch"]);
    // libpcp's counters: PDU_PROFILE is type 2, PDU_HIGHRES_FETCH 20
    assert_eq!((counts.sent[2], counts.sent[20], counts.sent[12]), (2, 4, 1));
    assert_eq!((counts.received[0], counts.received[21]), (1, 4));
}

#[test]
fn state_changes_come_back_with_the_values() {
    let (h, _fakes) = open(|| FakePmcd::new(Quirk::StateChange(1 | 8)));
    let (r, changed) = h.fetch(&[ONE], &Profile::default()).unwrap();
    assert_eq!((changed, values(&r, 0)), (9, vec![(-1, 1)]));
}

fn store_of(pmid: PmId, v: i32) -> FetchResult {
    let set = ValueSet { pmid, values: Ok(vec![InstValue { inst: -1, value: Value::Insitu(v) }]) };
    FetchResult { timestamp: Timestamp::default(), sets: vec![set] }
}

#[test]
fn stores_come_back_with_pmcds_verdict() {
    let (h, fakes) = open(fake);
    let profile = Profile::default();
    h.store(&store_of(WRITE_ME, 42)).unwrap();
    assert_eq!(values(&h.fetch(&[WRITE_ME], &profile).unwrap().0, 0), [(-1, 42)]);
    assert_eq!(h.store(&store_of(ONE, 5)), Err(PmError::PM_ERR_PERMISSION));
    assert_eq!(h.store(&store_of(PmId::new(29, 9, 9), 5)), Err(PmError::PM_ERR_PMID));
    // refused before anything is sent
    assert_eq!(
        h.store(&FetchResult { timestamp: Timestamp::default(), sets: Vec::new() }),
        Err(PmError::PM_ERR_TOOSMALL)
    );
    let mut empty = store_of(WRITE_ME, 1);
    empty.sets[0].values = Ok(Vec::new());
    assert_eq!(h.store(&empty), Err(PmError::PM_ERR_VALUE));
    let got = finish(h, fakes);
    let stores = got[0].received.iter().filter(|(_, p)| matches!(p, Pdu::Result(_))).count();
    assert_eq!(stores, 3);
}

#[test]
fn the_host_name_is_pmcds_else_the_specifications() {
    let (h, _f) = open(fake);
    assert_eq!(h.host_name(&Profile::default()), "fakehost");
    let (h, _f) = open(|| {
        let mut f = fake();
        let mut m: Metric = f.metrics[0].clone();
        m.name = "pmcd.hostname";
        m.desc.pmid = PmId::new(2, 7, 1);
        m.desc.ty = pcp_core::MetricType::STRING;
        m.values = vec![InstValue { inst: -1, value: Value::Block(ValueBlock::new(6, b"box.example\0".to_vec())) }];
        f.metrics.push(m);
        f
    });
    assert_eq!(h.host_name(&Profile::default()), "box.example");
}

#[test]
fn reconnection_backs_off_after_failures() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let up = Arc::new(AtomicUsize::new(1));
    let (inner, fakes) = fake_connector(|| FakePmcd::new(Quirk::HangUpAfter(1)));
    let (a, u) = (attempts.clone(), up.clone());
    let connector: Connector = Arc::new(move || {
        a.fetch_add(1, Ordering::SeqCst);
        if u.load(Ordering::SeqCst) == 0 {
            return Err(PmError::from_errno(111));
        }
        inner()
    });
    let h = HostSource::with_connector("fakehost", connector).unwrap();
    let profile = Profile::default();
    assert!(h.fetch(&[ONE], &profile).is_ok());
    // the second reply stops half way: the connection is broken
    assert_eq!(h.fetch(&[ONE], &profile).err(), Some(PmError::PM_ERR_IPC));
    assert_eq!(h.lookup_desc(ONE), Err(PmError::PM_ERR_IPC));

    // pmcd is down: each failure waits longer, and asking sooner fails at once
    up.store(0, Ordering::SeqCst);
    let etimedout = Err(PmError::from_errno(110));
    let t0 = Instant::now();
    assert_eq!(h.reconnect_at(t0), etimedout);
    assert_eq!(h.retry_at(), Some(t0 + Duration::from_secs(5)));
    assert_eq!(h.reconnect_at(t0 + Duration::from_secs(4)), etimedout);
    assert_eq!(attempts.load(Ordering::SeqCst), 2, "no attempt before the delay is up");
    assert_eq!(h.reconnect_at(t0 + Duration::from_secs(5)), etimedout);
    assert_eq!(h.retry_at(), Some(t0 + Duration::from_secs(15)));
    assert_eq!(h.lookup_desc(ONE), Err(PmError::PM_ERR_IPC));

    // back up: a fresh connection, the profile sent again, delays reset
    up.store(1, Ordering::SeqCst);
    h.reconnect_at(t0 + Duration::from_secs(15)).unwrap();
    assert_eq!(h.retry_at(), None);
    assert_eq!(values(&h.fetch(&[ONE], &profile).unwrap().0, 0), [(-1, 1)]);
    drop(h);
    let got: Vec<FakePmcd> =
        std::mem::take(&mut *fakes.lock().unwrap()).into_iter().map(|j| j.join().unwrap()).collect();
    assert_eq!(got.len(), 2);
    assert!(matches!(got[1].received[1].1, Pdu::Profile(_)));
}

#[test]
fn duplicates_have_their_own_connection() {
    let (h, fakes) = open(fake);
    let d = h.dup().unwrap();
    d.store(&store_of(WRITE_ME, 7)).unwrap();
    // each connection has its own fake here, so the original's value stands
    let p = Profile::default();
    assert_eq!(values(&h.fetch(&[WRITE_ME], &p).unwrap().0, 0), [(-1, 13)]);
    assert_eq!(values(&d.fetch(&[WRITE_ME], &p).unwrap().0, 0), [(-1, 7)]);
    drop(d);
    assert_eq!(finish(h, fakes).len(), 2);
}

#[test]
fn many_contexts_work_at_once_from_many_threads() {
    fn both<T: Send + Sync>() {}
    both::<HostSource>();
    let sources: Vec<(HostSource, Fakes)> = (0..4).map(|_| open(fake)).collect();
    let shared = Arc::new(sources);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let s = shared.clone();
            std::thread::spawn(move || {
                let (h, _) = &s[t % 4];
                for _ in 0..25 {
                    let (r, _) = h.fetch(&[ONE, COLOUR], &Profile::default()).unwrap();
                    assert_eq!(r.sets.len(), 2);
                    assert_eq!(h.name_of(ONE).as_deref(), Ok("sample.long.one"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn the_context_facade_dispatches_to_the_host() {
    use pcp::{Context, PmnsLocation};
    let (h, fakes) = open(fake);
    let mut ctx = Context::with_host(h);
    assert_eq!(ctx.pmns_location(), PmnsLocation::Remote);
    let (ids, _) = ctx.lookup_names(&["sample.colour", "sample.long.one"]).unwrap();
    let desc = ctx.lookup_desc(ids[0]).unwrap();
    assert_eq!(ctx.get_indom(desc.indom).unwrap().0, [0, 1, 2]);
    assert_eq!(ctx.name_indom(desc.indom, 2), Ok(b"blue".to_vec()));
    ctx.add_profile(desc.indom, &[0, 2]).unwrap();
    assert_eq!(values(&ctx.fetch(&ids).unwrap(), 0), [(0, 101), (2, 303)]);
    let (_, changed) = ctx.fetch_changes(&ids).unwrap();
    assert_eq!(changed, 0);
    assert_eq!(ctx.lookup_descs(&ids).unwrap().1, 2);
    // labels through the facade, merged in PCP's hierarchy
    let sets = ctx.lookup_labels(ids[0]).unwrap();
    let merged = pcp_core::labels::merge_label_sets(
        &sets.iter().map(Some).collect::<Vec<_>>(),
        pcp_core::labels::PM_MAXLABELJSONLEN,
        None,
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(merged).unwrap(),
        r#"{"agent":"sample","cluster":"zero","hostname":"fake","model":"RGB","role":"testing","userid":0}"#
    );
    assert_eq!(ctx.get_instances_labels(desc.indom).unwrap().len(), 2);
    assert_eq!(ctx.store(&store_of(ids[1], 2)), Err(PmError::PM_ERR_PERMISSION));
    assert!(ctx.archive_source().is_none());
    assert_eq!(ctx.get_indom_archive(desc.indom), Err(PmError::PM_ERR_NOTARCHIVE));

    // a duplicate has its own connection and the same profile
    let dup = ctx.dup_host().unwrap();
    let moved = std::thread::spawn(move || {
        let mut dup = dup;
        let r = dup.fetch(&[COLOUR]).unwrap();
        (values(&r, 0), dup.pdu_counts().sent[2])
    });
    assert_eq!(moved.join().unwrap(), (vec![(0, 101), (2, 303)], 1));
    assert!(ctx.pdu_counts().received[21] >= 2);
    drop(ctx);
    let got: Vec<FakePmcd> =
        std::mem::take(&mut *fakes.lock().unwrap()).into_iter().map(|j| j.join().unwrap()).collect();
    assert_eq!(got.len(), 2);
}

#[test]
fn bulk_descriptors_of_a_host_context_include_its_derived_metrics() {
    let mut registry = pcp::derived::Registry::new();
    registry.register("my.twice", "sample.long.one * 2").unwrap();
    registry.register("my.bad", "sample.long.one + no.such.metric").unwrap();
    for bulk in [true, false] {
        let (h, _fakes) = open(move || {
            let mut f = fake();
            if !bulk {
                f.info.features &= !features::DESCS;
            }
            f
        });
        let mut ctx = pcp::Context::with_host(h);
        ctx.bind_derived(&registry);
        let (ids, _) = ctx.lookup_names(&["my.twice", "my.bad"]).unwrap();
        let (twice, bad) = (ids[0], ids[1]);
        let (d, n) = ctx.lookup_descs(&[ONE, twice, bad, FLAGS]).unwrap();
        assert_eq!((n, d[1].pmid, d[2].pmid, d[3].pmid), (3, twice, PmId::NULL, FLAGS), "bulk {bulk}");
        assert_eq!(ctx.lookup_descs(&[twice, FLAGS]).unwrap().1, 2);
        // one metric alone: its descriptor, or its error (rule 4)
        assert_eq!(ctx.lookup_descs(&[twice]).map(|(d, n)| (d[0], n)), Ok((ctx.lookup_desc(twice).unwrap(), 1)));
        assert_eq!(ctx.lookup_descs(&[bad]), Err(PmError::PM_ERR_BADDERIVE));
        assert_eq!(ctx.lookup_descs(&[PmId::new(511, 0, 77)]), Err(PmError::PM_ERR_PMID));
    }
}

#[test]
fn reconnection_binds_the_derived_metrics_afresh() {
    // the first pmcd lacks sample.long.write_me, the next has it
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = connections.clone();
    let (h, _fakes) = open(move || {
        let mut f = fake();
        if seen.fetch_add(1, Ordering::SeqCst) == 0 {
            f.metrics.retain(|m| m.name != "sample.long.write_me");
        }
        f
    });
    let mut registry = pcp::derived::Registry::new();
    registry.register("my.write_me", "sample.long.write_me + 1").unwrap();
    registry.register("my.one", "sample.long.one * 2").unwrap();
    let mut ctx = pcp::Context::with_host(h);
    ctx.bind_derived(&registry);
    let (ids, _) = ctx.lookup_names(&["my.write_me", "my.one"]).unwrap();
    assert_eq!(ctx.lookup_desc(ids[0]), Err(PmError::PM_ERR_BADDERIVE));
    assert!(ctx.lookup_desc(ids[1]).is_ok());
    ctx.reconnect().unwrap();
    assert_eq!(connections.load(Ordering::SeqCst), 2);
    assert_eq!(ctx.lookup_desc(ids[0]).map(|d| d.pmid), Ok(ids[0]));
    let r = ctx.fetch(&ids).unwrap();
    assert_eq!((values(&r, 0), values(&r, 1)), (vec![(-1, 14)], vec![(-1, 2)]));
}

#[test]
fn a_host_context_has_the_global_metrics_registered_after_it() {
    let shared = pcp::derived::SharedRegistry::default();
    let mut ctx = pcp::Context::with_host(open(fake).0);
    ctx.use_registry(&shared);
    assert!(ctx.lookup_names(&["my.later"]).is_err());
    let later = shared.register("my.later", "sample.long.one * 2").unwrap();
    assert_eq!(ctx.lookup_names(&["my.later"]).unwrap().0, [later]);
    let mut all = Vec::new();
    ctx.traverse_with("my", |n| all.push(n.to_string())).unwrap();
    assert_eq!(all, ["my.later"]);
    assert_eq!(ctx.lookup_descs(&[ONE, later]).unwrap().1, 2);
    assert_eq!(values(&ctx.fetch(&[later]).unwrap(), 0), [(-1, 2)]);
}

#[test]
fn unloading_a_loaded_name_space_gives_back_pmcds_names() {
    use pcp::{Context, PmnsLocation};
    let mut ctx = Context::with_host(open(fake).0);
    let mut pmns = pcp_pmns::Pmns::new();
    pmns.add_names([("my.colour", COLOUR)]);
    ctx.use_namespace_of(Context::with_namespace(pmns));
    assert_eq!(ctx.lookup_names(&["my.colour"]).unwrap().0, [COLOUR]);
    assert_eq!(ctx.unload_namespace(), Ok(()));
    assert_eq!(ctx.pmns_location(), PmnsLocation::Remote);
    assert_eq!(ctx.lookup_names(&["sample.colour"]).unwrap().0, [COLOUR]);
    assert!(ctx.lookup_names(&["my.colour"]).is_err());
}

#[test]
fn archive_and_name_space_contexts_answer_the_host_only_services() {
    let ctx = pcp::Context::with_namespace(pcp_pmns::Pmns::new());
    assert_eq!(ctx.store(&store_of(ONE, 1)), Err(PmError::PM_ERR_NOTHOST));
    assert_eq!(ctx.reconnect(), Ok(()));
    assert_eq!(ctx.dup_host().err(), Some(PmError::PM_ERR_NOTHOST));
    assert_eq!(ctx.lookup_descs(&[ONE]), Err(PmError::PM_ERR_NOCONTEXT));
    // the anonymous derived metrics are described in every context
    let (d, n) = ctx.lookup_descs(&[ONE, FLAGS]).unwrap();
    assert_eq!((n, d[0].pmid, d[1].pmid), (1, PmId::NULL, FLAGS));
}

#[test]
fn fetch_all_answers_each_context_as_its_own_fetch_does() {
    use pcp::Context;
    let snapshot = format!("{}/../pcp-linux/tests/snapshot/vm1", env!("CARGO_MANIFEST_DIR"));
    let mut ctxs: Vec<Context> = (0..5).map(|_| Context::with_host(open(fake).0)).collect();
    // a local context among them fetches on its own
    ctxs.insert(3, Context::open_local_at(&snapshot).unwrap());
    let indom = ctxs[0].lookup_desc(COLOUR).unwrap().indom;
    ctxs[2].add_profile(indom, &[1]).unwrap();
    let pmids = [ONE, COLOUR, FLAGS];
    for _ in 0..3 {
        let want: Vec<_> = ctxs.iter_mut().map(|c| c.fetch(&pmids).map(|r| r.sets)).collect();
        let got: Vec<_> = Context::fetch_all(&mut ctxs, &pmids).into_iter().map(|r| r.map(|r| r.sets)).collect();
        assert_eq!(got, want);
    }
    let got = Context::fetch_all(&mut ctxs, &pmids);
    let r = got[2].as_ref().unwrap();
    assert_eq!(values(r, 1), [(1, 202)]);
    assert_eq!(got[0].as_ref().unwrap().sets[2].values, Ok(Vec::new()));
    assert_eq!(got[3].as_ref().unwrap().sets[0].values, Err(PmError::PM_ERR_NOAGENT));
    assert!(Context::fetch_all(&mut ctxs, &[]).iter().all(|r| *r == Err(PmError::PM_ERR_TOOSMALL)));
}

type Call = fn(&HostSource) -> Result<String, PmError>;

#[test]
fn a_malformed_reply_fails_its_request_and_the_next_one_is_answered() {
    // libpcp's receivers decode a reply __pmGetPDU has taken whole; one
    // that does not decode, or is of another type, is PM_ERR_IPC for its
    // request, and the connection goes on
    let desc = FakePmcd::new(Quirk::None).metrics[0].desc;
    let text = Pdu::Text(pcp_pdu::Text { ident: ONE.0, text: b"text".to_vec() });
    let names = Pdu::PmnsNames(pcp_pdu::NameList { names: vec![b"one".to_vec()], status: None });
    let instance = pcp_pdu::Instance { inst: 0, name: b"red".to_vec() };
    let instances = Pdu::Instance(pcp_pdu::InResult { indom: COLOUR_INDOM, instances: vec![instance] });
    let ids = Pdu::PmnsIds(pcp_pdu::IdList { status: 1, ids: vec![ONE] });
    let labels = Pdu::Label(pcp_pdu::Labels { ident: 0, kind: i32::from(flags::CONTEXT), sets: Vec::new() });
    let result = Pdu::HighResResult(pcp_pdu::ResultPdu::from(FetchResult {
        timestamp: Timestamp::new(1, 2),
        sets: vec![ValueSet { pmid: ONE, values: Ok(vec![InstValue { inst: -1, value: Value::Insitu(1) }]) }],
    }));
    let mut short_desc = Pdu::error(0).to_bytes(0).unwrap();
    short_desc[7] = 0x05; // PDU_DESC, 4 bytes where __pmDecodeDesc wants 20
    let mut long_error = with_word(&Pdu::xtend_error(0, 0), 0, 24);
    long_error.extend([0; 4]); // neither of __pmDecodeError's two sizes
    let cases: Vec<(&str, Vec<u8>, Call)> = vec![
        ("desc", short_desc.clone(), |h| h.lookup_desc(ONE).map(|d| format!("{d:?}"))),
        // more descriptors than the PDU holds (__pmDecodeDescs)
        ("descs", with_word(&Pdu::Descs(vec![desc]), 12, 2), |h| {
            h.lookup_descs(&[ONE, COLOUR]).map(|d| format!("{d:?}"))
        }),
        ("desc, wrong type", text.to_bytes(0).unwrap(), |h| h.lookup_desc(ONE).map(|d| format!("{d:?}"))),
        // more instances than the PDU holds (__pmDecodeInstance)
        ("indom", with_word(&instances, 16, 1000), |h| h.get_indom(COLOUR_INDOM).map(|i| format!("{i:?}"))),
        ("instance name", with_word(&instances, 16, 1000), |h| h.name_indom(COLOUR_INDOM, 1).map(|n| format!("{n:?}"))),
        ("instance id", with_word(&instances, 16, 1000), |h| {
            h.lookup_indom(COLOUR_INDOM, b"blue").map(|i| format!("{i}"))
        }),
        // a text longer than its PDU (__pmDecodeText)
        ("one-line text", with_word(&text, 16, 1000), |h| {
            h.lookup_text(ONE, TextLevel::OneLine).map(|t| format!("{t:?}"))
        }),
        ("indom text", with_word(&text, 16, 1000), |h| {
            h.lookup_indom_text(COLOUR_INDOM, TextLevel::OneLine).map(|t| format!("{t:?}"))
        }),
        // a negative number of label sets (__pmDecodeLabel)
        ("labels", with_word(&labels, 24, -1), |h| {
            h.labels(flags::CONTEXT, 0, &Profile::default()).map(|l| format!("{l:?}"))
        }),
        // more PMIDs than the PDU holds (__pmDecodeIDList)
        ("pmid of a name", with_word(&ids, 16, 1000), |h| {
            h.lookup_names(&["sample.long.one"]).map(|i| format!("{i:?}"))
        }),
        // more names than the PDU holds (__pmDecodeNameList)
        ("name of a pmid", with_word(&names, 20, 1000), |h| h.name_of(ONE)),
        ("children", with_word(&names, 20, 1000), |h| h.children("sample").map(|c| format!("{c:?}"))),
        ("traversal", with_word(&names, 20, 1000), |h| traverse(h, "sample").map(|n| format!("{n:?}"))),
        // more value sets than the PDU holds (__pmDecodeHighResResult)
        ("fetch", with_word(&result, 12, 1000), |h| {
            h.fetch(&[ONE], &Profile::default()).map(|(r, c)| format!("{:?} {c}", values(&r, 0)))
        }),
        ("fetch, wrong type", short_desc, |h| {
            h.fetch(&[ONE], &Profile::default()).map(|(r, c)| format!("{:?} {c}", values(&r, 0)))
        }),
        ("store", long_error, |h| h.store(&store_of(WRITE_ME, 13)).map(|()| String::new())),
    ];
    for (what, bytes, call) in cases {
        let (good, fakes) = open(fake);
        let want = call(&good);
        assert!(want.is_ok(), "{what}: {want:?}");
        finish(good, fakes);
        let (h, fakes) = open(move || FakePmcd::new(Quirk::Replace(0, bytes.clone())));
        assert_eq!(call(&h), Err(PmError::PM_ERR_IPC), "{what}");
        assert_eq!(call(&h), want, "{what}: the next request");
        let got = finish(h, fakes);
        assert_eq!(got.len(), 1, "{what}: one connection throughout");
    }
}

#[test]
fn a_malformed_help_text_falls_back_to_the_one_line_text() {
    // lookuptext asks for the one-line text when the help request fails,
    // however it failed
    let text = Pdu::Text(pcp_pdu::Text { ident: ONE.0, text: b"text".to_vec() });
    let (h, fakes) = open(move || FakePmcd::new(Quirk::Replace(0, with_word(&text, 16, 1000))));
    assert_eq!(h.lookup_text(ONE, TextLevel::Help).unwrap(), b"1 as a 32-bit integer");
    assert_eq!(h.lookup_text(ONE, TextLevel::Help).unwrap(), b"This one has the constant value 1.");
    finish(h, fakes);
}

#[test]
fn reconnection_is_traced_as_libpcp_traces_it() {
    let up = Arc::new(AtomicUsize::new(1));
    let (inner, _fakes) = fake_connector(fake);
    let u = up.clone();
    let connector: Connector = Arc::new(move || {
        if u.load(Ordering::SeqCst) == 0 {
            return Err(PmError::from_errno(111));
        }
        inner()
    });
    let mut ctx = pcp::Context::with_host(HostSource::with_connector("fakehost", connector).unwrap());
    let trace = pcp::debug::Trace::new(pcp::debug::DebugOptions::parse(b"context").unwrap());
    ctx.set_trace(trace.clone());
    let said = || String::from_utf8_lossy(&trace.take()).into_owned();
    up.store(0, Ordering::SeqCst);
    let t0 = Instant::now();
    assert!(ctx.reconnect_at(t0).is_err());
    assert_eq!(said(), "pmReconnectContext(0), failed (wait 5 secs before next attempt)\n");
    assert!(ctx.reconnect_at(t0 + Duration::from_secs(3)).is_err());
    assert_eq!(said(), "pmReconnectContext(0) -> -110, too soon (need wait another 2 secs)\n");
    up.store(1, Ordering::SeqCst);
    ctx.reconnect_at(t0 + Duration::from_secs(5)).unwrap();
    assert!(said().ends_with("pmReconnectContext(0), done\npmReconnectContext(0) -> 0\n"));
}
