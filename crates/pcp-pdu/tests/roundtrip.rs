//! Property tests: any PDU contents the codec can carry encode to a PDU
//! of the declared length that decodes to the same contents, and every
//! prefix of it is refused (or, cut at a PDU boundary, not yet whole).

use pcp_core::labels::{Label, LabelSet};
use pcp_core::{Desc, FetchResult, InDom, InstValue, MetricType, PmError, PmId, Semantics, Timestamp, Units};
use pcp_core::{Value, ValueBlock, ValueSet};
use pcp_pdu::{
    Attr, Cred, ErrorPdu, Fetch, Framer, IdList, InDomProfile, InResult, Instance, InstanceReq, LabelReq, Labels,
    NameList, NameReq, Pdu, Profile, ResultPdu, Text, TextReq,
};
use proptest::collection::vec;
use proptest::prelude::*;

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..max)
}

fn pmid() -> impl Strategy<Value = PmId> {
    any::<u32>().prop_map(PmId)
}

fn desc() -> impl Strategy<Value = Desc> {
    (any::<u32>(), any::<i32>(), any::<u32>(), any::<i32>(), any::<u32>()).prop_map(|(p, t, i, s, u)| Desc {
        pmid: PmId(p),
        ty: MetricType(t),
        indom: InDom(i),
        sem: Semantics(s),
        units: Units::from_u32(u),
    })
}

/// A value block of a type other than the event arrays, numbers of
/// their proper size.
fn block() -> impl Strategy<Value = ValueBlock> {
    prop_oneof![
        (prop_oneof![Just(2u8), Just(3), Just(5)], any::<[u8; 8]>()).prop_map(|(t, d)| ValueBlock::new(t, d.to_vec())),
        any::<[u8; 4]>().prop_map(|d| ValueBlock::new(4, d.to_vec())),
        (prop_oneof![Just(6u8), Just(7), Just(0), Just(200)], bytes(40)).prop_map(|(t, d)| ValueBlock::new(t, d)),
    ]
}

fn value_set() -> impl Strategy<Value = ValueSet> {
    let values = prop_oneof![
        (-20000i32..0).prop_map(|c| Err(PmError::from_code(c))),
        vec((any::<i32>(), any::<i32>()), 0..5)
            .prop_map(|v| Ok(v.into_iter().map(|(inst, l)| InstValue { inst, value: Value::Insitu(l) }).collect())),
        vec((any::<i32>(), block()), 1..5)
            .prop_map(|v| Ok(v.into_iter().map(|(inst, b)| InstValue { inst, value: Value::Block(b) }).collect())),
    ];
    (pmid(), values).prop_map(|(pmid, values)| ValueSet { pmid, values })
}

fn result(highres: bool) -> impl Strategy<Value = ResultPdu> {
    let time = if highres {
        (any::<i64>(), 0u32..1_000_000_000).prop_map(|(sec, nsec)| Timestamp { sec, nsec }).boxed()
    } else {
        (any::<i32>(), 0u32..1_000_000).prop_map(|(sec, usec)| Timestamp::from_timeval(sec.into(), usec)).boxed()
    };
    (time, vec(value_set(), 0..5), any::<u8>()).prop_map(|(timestamp, sets, pick)| {
        // some of the sets of blocks go as PM_VAL_SPTR
        let sptr_sets = sets
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                pick >> (i % 8) & 1 == 1
                    && s.values.as_ref().is_ok_and(|v| v.iter().any(|v| matches!(v.value, Value::Block(_))))
            })
            .map(|(i, _)| i)
            .collect();
        ResultPdu { result: FetchResult { timestamp, sets }, sptr_sets }
    })
}

fn label_set() -> impl Strategy<Value = LabelSet> {
    (any::<i32>(), bytes(60), vec(any::<[u16; 5]>(), 0..4), any::<bool>(), -20000i32..0).prop_map(
        |(inst, json, raw, failed, code)| {
            let within = |x: u16| if json.is_empty() { 0 } else { x % json.len() as u16 };
            let labels: Vec<Label> = raw
                .iter()
                .map(|r| {
                    let (name, value) = (within(r[0]), within(r[2]));
                    Label {
                        name,
                        namelen: ((r[1] as usize) % (json.len() - name as usize + 1)).min(255) as u8,
                        flags: r[4] as u8,
                        value,
                        valuelen: (r[3] as usize % (json.len() - value as usize + 1)) as u16,
                    }
                })
                .collect();
            if failed {
                LabelSet { inst, nlabels: code, json, labels: Vec::new(), names: None }
            } else {
                LabelSet { inst, nlabels: labels.len() as i32, json, labels, names: None }
            }
        },
    )
}

fn name_list() -> impl Strategy<Value = NameList> {
    (vec(bytes(20), 0..6), bytes(8), any::<bool>()).prop_map(|(mut names, last, with_status)| {
        if !names.is_empty() {
            // libpcp cannot read a list ending in an empty name
            names.push(if last.is_empty() { b"x".to_vec() } else { last });
        }
        let status = (with_status && !names.is_empty()).then(|| (0..names.len() as i32).map(|i| i % 2).collect());
        NameList { names, status }
    })
}

fn pdu() -> impl Strategy<Value = Pdu> {
    prop_oneof![
        (any::<i32>(), proptest::option::of(any::<u32>()))
            .prop_map(|(code, datum)| Pdu::Error(ErrorPdu { code, datum })),
        result(false).prop_map(Pdu::Result),
        result(true).prop_map(Pdu::HighResResult),
        (0..i32::MAX, any::<i32>(), vec((any::<u32>(), any::<i32>(), vec(any::<i32>(), 0..5)), 0..4)).prop_map(
            |(ctxid, state, p)| Pdu::Profile(Profile {
                ctxid,
                state,
                indoms: p
                    .into_iter()
                    .map(|(i, state, instances)| InDomProfile { indom: InDom(i), state, instances })
                    .collect()
            })
        ),
        (any::<i32>(), vec(pmid(), 1..8)).prop_map(|(ctxid, pmids)| Pdu::Fetch(Fetch { ctxid, pmids })),
        (any::<i32>(), vec(pmid(), 1..8)).prop_map(|(ctxid, pmids)| Pdu::HighResFetch(Fetch { ctxid, pmids })),
        pmid().prop_map(Pdu::DescReq),
        desc().prop_map(Pdu::Desc),
        vec(pmid(), 1..8).prop_map(Pdu::DescIds),
        vec(desc(), 1..5).prop_map(Pdu::Descs),
        (any::<u32>(), any::<i32>(), proptest::option::of(vec(any::<u8>(), 1..20)))
            .prop_map(|(i, inst, name)| { Pdu::InstanceReq(InstanceReq { indom: InDom(i), inst, name }) }),
        (any::<u32>(), vec((any::<i32>(), bytes(20)), 0..6)).prop_map(|(i, v)| Pdu::Instance(InResult {
            indom: InDom(i),
            instances: v.into_iter().map(|(inst, name)| Instance { inst, name }).collect()
        })),
        (any::<u32>(), any::<i32>()).prop_map(|(ident, kind)| Pdu::TextReq(TextReq { ident, kind })),
        (any::<u32>(), bytes(80)).prop_map(|(ident, text)| Pdu::Text(Text { ident, text })),
        vec(any::<u32>(), 1..10).prop_map(|c| Pdu::Creds(c.into_iter().map(Cred::from_u32).collect())),
        (any::<i32>(), vec(pmid(), 1..8)).prop_map(|(status, ids)| Pdu::PmnsIds(IdList { status, ids })),
        name_list().prop_map(Pdu::PmnsNames),
        (any::<i32>(), bytes(30)).prop_map(|(subtype, name)| Pdu::PmnsChild(NameReq { subtype, name })),
        (any::<i32>(), bytes(30)).prop_map(|(subtype, name)| Pdu::PmnsTraverse(NameReq { subtype, name })),
        (any::<i32>(), bytes(200)).prop_map(|(attr, value)| Pdu::Attr(Attr { attr, value })),
        (any::<u32>(), any::<i32>()).prop_map(|(ident, kind)| Pdu::LabelReq(LabelReq { ident, kind })),
        (any::<u32>(), any::<i32>(), vec(label_set(), 0..4)).prop_map(|(ident, kind, sets)| Pdu::Label(Labels {
            ident,
            kind,
            sets
        })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn contents_survive_the_wire(p in pdu(), from in any::<i32>()) {
        let bytes = p.to_bytes(from).unwrap();
        let declared = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        prop_assert_eq!(declared, bytes.len());
        let (h, back) = Pdu::decode(&bytes).unwrap();
        prop_assert_eq!((h.ty, h.from, h.len), (p.pdu_type(), from, bytes.len()));
        prop_assert_eq!(&back, &p);
        // every cut is refused, or waits for more
        for cut in 0..bytes.len() {
            prop_assert!(Pdu::decode(&bytes[..cut]).is_err());
            let mut f = Framer::for_client();
            f.push(&bytes[..cut]);
            prop_assert_eq!(f.next_pdu(), Ok(None));
            prop_assert!(f.wanted() > 0);
        }
    }
}
