//! PmcdConnection against the in-memory fake pmcd (tests/fake_pmcd):
//! the handshake, request/reply round trips, and what goes wrong
//! (refusals, timeouts, hang-ups, garbage, replies out of step), then
//! connecting again.

mod fake_pmcd;

use fake_pmcd::{start, with_word, Quirk, COLOUR_INDOM};
use pcp::transport::{Backoff, PmcdConnection, Timeouts};
use pcp_core::{PmError, PmId, Value};
use pcp_pdu::handshake::{features, ClientOptions, PDU_VERSION};
use pcp_pdu::{InstanceReq, NameList, Pdu, PduType, ResultPdu, TextReq};
use std::time::Duration;

const HANDLE: i32 = 3;

fn opts() -> ClientOptions {
    ClientOptions { pid: 4242, local: true, ..Default::default() }
}

/// Short timeouts, so the tests that wait for nothing do not wait long.
fn quick() -> Timeouts {
    Timeouts {
        connect: Duration::from_secs(1),
        greeting: Some(Duration::from_millis(200)),
        request: Some(Duration::from_millis(200)),
    }
}

fn names(list: &[&str]) -> Pdu {
    Pdu::PmnsNames(NameList { names: list.iter().map(|n| n.as_bytes().to_vec()).collect(), status: None })
}

#[test]
fn handshake_and_round_trips() {
    let (stream, fake) = start(Quirk::None);
    let mut c = PmcdConnection::handshake(stream, &opts(), Timeouts::default()).unwrap();
    assert!(c.highres());
    assert_eq!(c.flags(), 0);

    let Pdu::PmnsIds(ids) = c.request(&names(&["sample.long.one", "no.such"]), HANDLE, PduType::PMNS_IDS).unwrap()
    else {
        panic!("ids")
    };
    assert_eq!((ids.status, ids.ids[1]), (1, PmId::NULL));
    let one = ids.ids[0];
    let Pdu::Desc(d) = c.request(&Pdu::DescReq(one), HANDLE, PduType::DESC).unwrap() else { panic!("desc") };
    assert_eq!(d.pmid, one);
    assert_eq!(c.request(&Pdu::DescReq(PmId(7)), HANDLE, PduType::DESC), Err(PmError::PM_ERR_PMID));

    let colour = PmId::new(29, 0, 5);
    let (r, changed) = c.fetch(HANDLE, 0, &[one, colour, PmId(7)]).unwrap();
    assert_eq!(changed, 0);
    let sets = &r.result.sets;
    assert_eq!(sets[0].values.as_ref().unwrap()[0].value, Value::Insitu(1));
    assert_eq!(sets[1].values.as_ref().unwrap().len(), 3);
    assert_eq!(sets[2].values, Err(PmError::PM_ERR_PMID));

    let req = Pdu::InstanceReq(InstanceReq { indom: COLOUR_INDOM, inst: -1, name: Some(b"green".to_vec()) });
    let Pdu::Instance(i) = c.request(&req, HANDLE, PduType::INSTANCE).unwrap() else { panic!("instance") };
    assert_eq!(i.instances[0].inst, 1);
    let Pdu::Text(t) = c.request(&Pdu::TextReq(TextReq::new(one.0, 1 | 4)), HANDLE, PduType::TEXT).unwrap() else {
        panic!("text")
    };
    assert_eq!(t.text, b"1 as a 32-bit integer");
    // a store is answered by an error PDU of 0
    let store = Pdu::Result(ResultPdu::from(r.result.clone()));
    assert_eq!(c.request(&store, HANDLE, PduType::ERROR).map(|p| p.pdu_type()), Ok(PduType::ERROR));

    drop(c);
    let fake = fake.join().unwrap();
    // the credentials came first, from the client's pid, asking for
    // nothing; every request came from the context's handle
    let (from, Pdu::Creds(creds)) = &fake.received[0] else { panic!("credentials first") };
    assert_eq!((*from, creds[0].protocol_version(), creds[0].flags()), (4242, PDU_VERSION, 0));
    assert!(fake.received[1..].iter().all(|(from, _)| *from == HANDLE));
    assert!(matches!(fake.received[4].1, Pdu::HighResFetch(_)));
}

#[test]
fn a_pmcd_without_nanosecond_fetches_gets_the_old_ones() {
    let (client, server) = fake_pmcd::pair();
    let mut fake = fake_pmcd::FakePmcd::new(Quirk::None);
    fake.info.features &= !features::HIGHRES;
    let fake = std::thread::spawn(move || fake.serve(server));
    let mut c = PmcdConnection::handshake(client, &opts(), Timeouts::default()).unwrap();
    assert!(!c.highres());
    let (r, _) = c.fetch(HANDLE, 0, &[PmId::new(29, 0, 10)]).unwrap();
    // a timeval keeps microseconds
    assert_eq!(r.result.timestamp.nsec, 123_456_000);
    drop(c);
    assert!(matches!(fake.join().unwrap().received[1].1, Pdu::Fetch(_)));
}

#[test]
fn a_refusal_in_the_greeting_is_the_error() {
    let (stream, fake) = start(Quirk::Refuse(PmError::PM_ERR_PERMISSION.code()));
    assert_eq!(PmcdConnection::handshake(stream, &opts(), quick()).err(), Some(PmError::PM_ERR_PERMISSION));
    fake.join().unwrap();
}

#[test]
fn no_greeting_times_out() {
    let (stream, fake) = start(Quirk::NoGreeting);
    assert_eq!(PmcdConnection::handshake(stream, &opts(), quick()).err(), Some(PmError::PM_ERR_TIMEOUT));
    fake.join().unwrap();
}

#[test]
fn a_silent_pmcd_times_out_and_the_connection_is_broken() {
    let (stream, fake) = start(Quirk::Silent);
    let mut c = PmcdConnection::handshake(stream, &opts(), quick()).unwrap();
    let fetch = [PmId::new(29, 0, 10)];
    assert_eq!(c.fetch(HANDLE, 0, &fetch).err(), Some(PmError::PM_ERR_TIMEOUT));
    assert!(c.is_broken());
    assert_eq!(c.fetch(HANDLE, 0, &fetch).err(), Some(PmError::PM_ERR_IPC));
    drop(c);
    fake.join().unwrap();
}

#[test]
fn replies_arriving_a_byte_at_a_time_are_whole() {
    let (stream, fake) = start(Quirk::ByteAtATime);
    let mut c = PmcdConnection::handshake(stream, &opts(), Timeouts::default()).unwrap();
    let (r, _) = c.fetch(HANDLE, 0, &[PmId::new(29, 0, 5)]).unwrap();
    assert_eq!(r.result.sets[0].values.as_ref().unwrap().len(), 3);
    drop(c);
    fake.join().unwrap();
}

#[test]
fn bad_lengths_from_pmcd_are_refused_at_once() {
    for (len, err) in [(5, PmError::PM_ERR_IPC), (-1, PmError::PM_ERR_IPC), (i32::MAX, PmError::PM_ERR_TOOBIG)] {
        let (stream, fake) = start(Quirk::BadLength(len));
        let mut c = PmcdConnection::handshake(stream, &opts(), Timeouts::default()).unwrap();
        assert_eq!(c.request(&Pdu::DescReq(PmId::new(29, 0, 10)), HANDLE, PduType::DESC), Err(err), "{len}");
        drop(c);
        fake.join().unwrap();
    }
}

#[test]
fn state_changes_come_back_with_the_result() {
    let (stream, fake) = start(Quirk::StateChange(1));
    let mut c = PmcdConnection::handshake(stream, &opts(), Timeouts::default()).unwrap();
    let (r, changed) = c.fetch(HANDLE, 0, &[PmId::new(29, 0, 10)]).unwrap();
    assert_eq!((changed, r.result.sets.len()), (1, 1));
    drop(c);
    fake.join().unwrap();
}

#[test]
fn a_reply_of_the_wrong_type_fails_that_request_alone() {
    // as each of libpcp's receivers: PM_ERR_IPC, and the next request
    // reads the next reply
    let (stream, fake) = start(Quirk::WrongReply);
    let mut c = PmcdConnection::handshake(stream, &opts(), Timeouts::default()).unwrap();
    let req = Pdu::TextReq(TextReq::new(PmId::new(29, 0, 10).0, 1 | 4));
    assert_eq!(c.request(&req, HANDLE, PduType::TEXT), Err(PmError::PM_ERR_IPC));
    assert!(!c.is_broken());
    let desc = Pdu::DescReq(PmId::new(29, 0, 10));
    assert!(matches!(c.request(&desc, HANDLE, PduType::DESC), Ok(Pdu::Desc(_))));
    // a fetch answered by anything but its result: the same
    assert_eq!(c.fetch(HANDLE, 0, &[PmId::new(29, 0, 10)]).err(), Some(PmError::PM_ERR_IPC));
    assert!(!c.is_broken());
    drop(c);
    fake.join().unwrap();
}

#[test]
fn a_reply_that_does_not_decode_fails_that_request_alone() {
    let one = PmId::new(29, 0, 10);
    let desc = Pdu::DescReq(one);
    let text = Pdu::Text(pcp_pdu::Text { ident: one.0, text: b"hello".to_vec() });
    let mut short_desc = Pdu::error(0).to_bytes(0).unwrap();
    short_desc[7] = 0x05; // PDU_DESC, with 4 bytes of its 20
    let malformed = [
        // a text length past the PDU's end (__pmDecodeText)
        with_word(&text, 16, 1000),
        short_desc,
        // a negative type: taken whole by __pmGetPDU, then refused
        with_word(&Pdu::error(0), 4, -5),
        // an error PDU of neither 16 nor 20 bytes (__pmDecodeError)
        {
            let mut b = with_word(&Pdu::xtend_error(0, 0), 0, 24);
            b.extend([0; 4]);
            b
        },
    ];
    for bytes in malformed {
        let (stream, fake) = start(Quirk::Replace(0, bytes.clone()));
        let mut c = PmcdConnection::handshake(stream, &opts(), Timeouts::default()).unwrap();
        assert_eq!(c.request(&desc, HANDLE, PduType::DESC), Err(PmError::PM_ERR_IPC), "{bytes:02x?}");
        assert!(!c.is_broken());
        let Ok(Pdu::Desc(d)) = c.request(&desc, HANDLE, PduType::DESC) else { panic!("{bytes:02x?}") };
        assert_eq!(d.pmid, one);
        drop(c);
        fake.join().unwrap();
    }
}

#[test]
fn a_bad_length_word_still_breaks_the_connection() {
    // the stream cannot be followed past it: later requests fail at once
    let (stream, fake) = start(Quirk::Replace(0, with_word(&Pdu::error(0), 0, 8)));
    let mut c = PmcdConnection::handshake(stream, &opts(), Timeouts::default()).unwrap();
    let desc = Pdu::DescReq(PmId::new(29, 0, 10));
    assert_eq!(c.request(&desc, HANDLE, PduType::DESC), Err(PmError::PM_ERR_IPC));
    assert!(c.is_broken());
    assert_eq!(c.request(&desc, HANDLE, PduType::DESC), Err(PmError::PM_ERR_IPC));
    drop(c);
    fake.join().unwrap();
}

#[test]
fn after_a_hang_up_a_new_connection_works() {
    let (stream, fake) = start(Quirk::HangUpAfter(1));
    let mut c = PmcdConnection::handshake(stream, &opts(), quick()).unwrap();
    let desc = Pdu::DescReq(PmId::new(29, 0, 10));
    assert!(c.request(&desc, HANDLE, PduType::DESC).is_ok());
    // the second reply stops half way and the stream ends
    assert_eq!(c.request(&desc, HANDLE, PduType::DESC), Err(PmError::PM_ERR_IPC));
    assert!(c.is_broken());
    fake.join().unwrap();

    // libpcp waits a while before trying again, then starts afresh
    let (mut backoff, _) = Backoff::from_var(None);
    assert_eq!(backoff.next_delay(), Duration::from_secs(5));
    let (stream, fake) = start(Quirk::None);
    let mut c = PmcdConnection::handshake(stream, &opts(), quick()).unwrap();
    backoff.reset();
    assert!(c.request(&desc, HANDLE, PduType::DESC).is_ok());
    drop(c);
    fake.join().unwrap();
}
