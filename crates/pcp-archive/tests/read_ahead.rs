//! A plain volume big enough to be read ahead on a thread of its own
//! (logread's `Cursor` starts that with 8 MB or more of the volume left)
//! reads forwards record for record as it reads backwards, which never
//! reads ahead; the tests that say so check that reading ahead happened.
//!
//! The archive is made here from the `v3` fixture: its metadata as they
//! are, and a data volume of its label followed by its records over and
//! over, each copy shifted later in time past the one before.

use pcp_archive::archive::Archive;
use pcp_archive::{Mode, Replay};
use pcp_core::{PmError, Timestamp};
use std::path::Path;

/// Megabytes of records in a volume meant to be read ahead: more than
/// the 8 MB left that reading ahead starts with.
const AHEAD_MB: usize = 10;

/// The fixture's volume as (label record, data records), each record
/// whole (its length words included).
fn records(volume: &[u8]) -> (Vec<u8>, Vec<Vec<u8>>) {
    let len = |at: usize| u32::from_be_bytes(volume[at..at + 4].try_into().unwrap()) as usize;
    let label = volume[..len(0)].to_vec();
    let mut recs = Vec::new();
    let mut at = label.len();
    while at < volume.len() {
        recs.push(volume[at..at + len(at)].to_vec());
        at += len(at);
    }
    (label, recs)
}

/// A version 3 record's seconds: low word first, then high, after the
/// length word.
fn shift(rec: &mut [u8], by: u64) {
    let word = |b: &[u8], at: usize| u64::from(u32::from_be_bytes(b[at..at + 4].try_into().unwrap()));
    let sec = (word(rec, 8) << 32 | word(rec, 4)) + by;
    rec[4..8].copy_from_slice(&(sec as u32).to_be_bytes());
    rec[8..12].copy_from_slice(&((sec >> 32) as u32).to_be_bytes());
}

/// Two directories, `plain` and `xz`, each with the `v3` fixture's
/// metadata as `a.meta`, for volumes made of the fixture's records (its
/// label and records given, and how many copies of the records make
/// about `mb` megabytes).
struct Twins {
    dir: std::path::PathBuf,
    plain: std::path::PathBuf,
    xz: std::path::PathBuf,
    label: Vec<u8>,
    recs: Vec<Vec<u8>>,
    copies: usize,
}

impl Twins {
    fn new(tag: &str, mb: usize) -> Twins {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let (label, recs) = records(&std::fs::read(fixtures.join("v3.0")).unwrap());
        let meta = std::fs::read(fixtures.join("v3.meta")).unwrap();
        let dir = std::env::temp_dir().join(format!("pcp-rs-{tag}-{}", std::process::id()));
        let (plain, xz) = (dir.join("plain"), dir.join("xz"));
        for d in [&plain, &xz] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(d.join("a.meta"), &meta).unwrap();
        }
        let copies = mb * 1024 * 1024 / recs.iter().map(Vec::len).sum::<usize>() + 1;
        Twins { dir, plain, xz, label, recs, copies }
    }
}

impl Twins {
    /// Write the records as one volume `a.0`, plain and compressed, each
    /// copy shifted an hour past the one before; the `n`th record of the
    /// volume (from 0) has a byte changed halfway through it where
    /// `damage(copy, n)` says so. How many records were damaged.
    fn write_damaged(&self, damage: impl Fn(u64, usize) -> bool) -> usize {
        let (recs, mut volume, mut damaged) = (&self.recs, self.label.clone(), 0);
        for copy in 0..self.copies as u64 {
            for (i, r) in recs.iter().enumerate() {
                let mut r = r.clone();
                shift(&mut r, copy * 3600);
                let n = copy as usize * recs.len() + i;
                if damage(copy, n) && r.len() > 40 {
                    let at = 16 + (n / 37 * 13) % (r.len() - 24);
                    r[at] ^= 0x5a;
                    damaged += 1;
                }
                volume.extend_from_slice(&r);
            }
        }
        std::fs::write(self.plain.join("a.0"), &volume).unwrap();
        let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 1);
        std::io::Write::write_all(&mut enc, &volume).unwrap();
        std::fs::write(self.xz.join("a.0.xz"), enc.finish().unwrap()).unwrap();
        damaged
    }
}

/// The results of reading `replay` forwards (errors as `error …`), until
/// the end, an error that does not go away, or `most` of them; `after` is
/// called after each.
fn forwards_until_stuck(replay: &mut Replay, most: usize, mut after: impl FnMut(&Replay)) -> Vec<String> {
    let mut out = Vec::new();
    while out.len() < most {
        let r = replay.fetch_archive();
        after(replay);
        match r {
            Ok(r) => out.push(format!("{r:?}")),
            Err(PmError::PM_ERR_EOL) => break,
            Err(e) => {
                out.push(format!("error {e:?}"));
                if out.iter().rev().take(3).all(|o| o.starts_with("error")) && out.len() >= 3 {
                    break;
                }
            }
        }
    }
    out
}

/// Every result from the replay's position on, in its mode; whether the
/// volume was read ahead at any of them is or-ed into `read_ahead`.
fn all(replay: &mut Replay, read_ahead: &mut bool) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let r = replay.fetch_archive();
        *read_ahead |= replay.reading_ahead();
        match r {
            Ok(r) => out.push(format!("{r:?}")),
            Err(e) => {
                assert_eq!(e, PmError::PM_ERR_EOL);
                return out;
            }
        }
    }
}

#[test]
fn forwards_read_ahead_matches_backwards() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let (label, recs) = records(&std::fs::read(fixtures.join("v3.0")).unwrap());
    let dir = std::env::temp_dir().join(format!("pcp-rs-read-ahead-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixtures.join("v3.meta"), dir.join("big.meta")).unwrap();
    let mut volume = label;
    // big enough to be read ahead
    let copies = AHEAD_MB * 1024 * 1024 / recs.iter().map(Vec::len).sum::<usize>() + 1;
    for copy in 0..copies as u64 {
        for r in &recs {
            let mut r = r.clone();
            shift(&mut r, copy * 3600);
            volume.extend_from_slice(&r);
        }
    }
    std::fs::write(dir.join("big.0"), &volume).unwrap();
    let base = dir.join("big").to_string_lossy().into_owned();

    let mut replay = Replay::new(Archive::open(&base).unwrap()).unwrap();
    replay.set_mode(Mode::Forw, Timestamp { sec: 0, nsec: 0 }, 0).unwrap();
    let mut read_ahead = false;
    let forwards = all(&mut replay, &mut read_ahead);
    assert!(read_ahead, "the volume was not read ahead");
    let end = replay.end().unwrap();
    replay.set_mode(Mode::Back, end, 0).unwrap();
    let mut backwards = all(&mut replay, &mut read_ahead);
    backwards.reverse();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(forwards.len(), copies * recs.len());
    assert!(forwards == backwards, "forwards and backwards differ");
}

/// Three `.xz` volumes of a few megabytes each (decompressed on threads
/// of their own, the next one alongside the current one, the first as the
/// archive opens) replay exactly as the same volumes uncompressed:
/// forwards, backwards and interpolated.
#[test]
fn xz_volumes_replay_as_plain_ones() {
    let Twins { dir, plain, xz, label, recs, copies } = Twins::new("xz-volumes", 3);
    for vol in 0..3u32 {
        // the label names its volume (the word after the start time)
        let mut volume = label.clone();
        volume[24..28].copy_from_slice(&vol.to_be_bytes());
        for copy in 0..copies as u64 {
            for r in &recs {
                let mut r = r.clone();
                shift(&mut r, (u64::from(vol) * copies as u64 + copy) * 3600);
                volume.extend_from_slice(&r);
            }
        }
        std::fs::write(plain.join(format!("a.{vol}")), &volume).unwrap();
        let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 1);
        std::io::Write::write_all(&mut enc, &volume).unwrap();
        std::fs::write(xz.join(format!("a.{vol}.xz")), enc.finish().unwrap()).unwrap();
    }
    // premap: 0 none, 1 before the replay starts, 2 after it has read
    // the archive forwards, 3 before it starts with its pages let go after
    // reading forwards and again in the middle of the interpolation
    let replay_all = |base: &Path, early: bool, premap: u8| {
        let archive = Archive::open_early(&base.to_string_lossy(), early, false).unwrap();
        let first = archive.premap_first_volume();
        assert_eq!(first.is_some(), premap > 0, "{premap}");
        if premap == 1 || premap == 3 {
            first.as_ref().unwrap().run();
        }
        let start = archive.label().start;
        let pmids: Vec<_> = archive
            .meta()
            .iter()
            .filter_map(|r| match r {
                pcp_archive::raw::MetaRecord::Desc { desc, .. } => Some(desc.pmid),
                _ => None,
            })
            .collect();
        assert!(!pmids.is_empty());
        let mut replay = Replay::new(archive).unwrap();
        replay.set_mode(Mode::Forw, Timestamp { sec: 0, nsec: 0 }, 0).unwrap();
        let mut read_ahead = false;
        let forwards = all(&mut replay, &mut read_ahead);
        if let Some(first) = first.filter(|_| premap == 2) {
            first.run();
        }
        if premap == 3 {
            replay.release_mapped_pages();
        }
        let end = replay.end().unwrap();
        replay.set_mode(Mode::Back, end, 0).unwrap();
        let backwards = all(&mut replay, &mut read_ahead);
        // a sample every 20 minutes, from the start on
        replay.set_mode(Mode::Interp, start, 1_200_000_000_000).unwrap();
        let mut interp = Vec::new();
        loop {
            if premap == 3 && interp.len() == 10 {
                replay.release_mapped_pages();
            }
            match replay.fetch(&pmids, &|_, _| true) {
                Ok(r) => interp.push(format!("{r:?}")),
                Err(e) => {
                    assert_eq!(e, PmError::PM_ERR_EOL);
                    break;
                }
            }
        }
        (forwards, backwards, interp)
    };
    let want = replay_all(&plain.join("a"), false, 0);
    let got_early = replay_all(&xz.join("a"), true, 0);
    let got = replay_all(&xz.join("a"), false, 0);
    // the first plain volume mapped whole, before the replay or midway
    let premapped = replay_all(&plain.join("a"), true, 1);
    let premapped_midway = replay_all(&plain.join("a"), true, 2);
    let premapped_let_go = replay_all(&plain.join("a"), true, 3);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(premapped == want, "the first volume mapped whole replays differently");
    assert!(premapped_midway == want, "the first volume mapped whole midway replays differently");
    assert!(premapped_let_go == want, "the first volume mapped whole replays differently once its pages are let go");
    assert_eq!(want.0.len(), 3 * copies * recs.len());
    assert!(want.2.len() > 100);
    assert!(got_early == want, "xz volumes (first started early) replay differently");
    assert!(got == want, "xz volumes replay differently");
}

/// A plain volume big enough to be read ahead, with some records damaged
/// here and there (a byte changed halfway through them, which may leave
/// the record as good, laid out loosely, or broken), replays forwards
/// exactly as the same volume compressed, which is read without the
/// thread that reads plain volumes ahead and checks their records: the
/// same results and the same errors in the same places.
#[test]
fn damaged_records_read_ahead_as_read_otherwise() {
    let twins = Twins::new("damaged-ahead", AHEAD_MB);
    // past the first few copies (reading ahead starts a little way in),
    // one record in 97
    let damaged = twins.write_damaged(|copy, n| copy > 4 && n % 97 == 0);
    let Twins { dir, plain, xz, recs, copies, .. } = twins;
    let forwards = |base: &Path| {
        let mut replay = Replay::new(Archive::open(&base.to_string_lossy()).unwrap()).unwrap();
        replay.set_mode(Mode::Forw, Timestamp { sec: 0, nsec: 0 }, 0).unwrap();
        let mut read_ahead = false;
        let out = forwards_until_stuck(&mut replay, 4 * copies * recs.len(), |r| read_ahead |= r.reading_ahead());
        (out, read_ahead)
    };
    let (want, xz_read_ahead) = forwards(&xz.join("a"));
    let (got, plain_read_ahead) = forwards(&plain.join("a"));
    std::fs::remove_dir_all(&dir).unwrap();
    let errors = want.iter().filter(|o| o.starts_with("error")).count();
    assert!(plain_read_ahead && !xz_read_ahead, "read ahead: plain {plain_read_ahead}, xz {xz_read_ahead}");
    assert!(damaged > 20 && errors > 0, "{damaged} {errors}");
    assert!(want.len() > copies * recs.len() / 2, "{}", want.len());
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "result {i}");
    }
}

/// A first volume mapped whole, with some records damaged here and there
/// (as above), replays forwards exactly as the same volume compressed
/// while its records are also checked from the last back (as pmval's
/// thread does while it waits for fetches made ahead): all of them before
/// the replay, or one for every record read, or none; the same results
/// and the same errors in the same places.
#[test]
fn damaged_records_checked_from_the_back_read_as_otherwise() {
    let twins = Twins::new("damaged-back", 2);
    let damaged = twins.write_damaged(|_, n| n % 37 == 5);
    let Twins { dir, plain, xz, recs, copies, .. } = twins;
    // back: 0 checks none, 1 all before the replay, 2 one per record read
    let forwards = |base: &Path, back: u8| {
        let archive = Archive::open_early(&base.to_string_lossy(), true, false).unwrap();
        if let Some(first) = archive.premap_first_volume() {
            first.run();
        }
        let mut replay = Replay::new(archive).unwrap();
        replay.set_mode(Mode::Forw, Timestamp { sec: 0, nsec: 0 }, 0).unwrap();
        let mut check = replay.back_check().filter(|_| back > 0);
        let mut checked = 0;
        let mut step = || {
            if check.as_mut().is_some_and(|c| c.step()) {
                checked += 1;
            }
        };
        if back == 1 {
            for _ in 0..=copies * recs.len() {
                step();
            }
        }
        let out = forwards_until_stuck(&mut replay, 4 * copies * recs.len(), |_| {
            if back == 2 {
                step();
            }
        });
        (out, checked)
    };
    let (want, none) = forwards(&xz.join("a"), 0);
    let runs: Vec<_> = (0..3).map(|back| forwards(&plain.join("a"), back)).collect();
    std::fs::remove_dir_all(&dir).unwrap();
    let errors = want.iter().filter(|o| o.starts_with("error")).count();
    assert!(damaged > 20 && errors > 0, "{damaged} {errors}");
    assert!(want.len() > copies * recs.len() / 2, "{}", want.len());
    // (an xz volume is not mapped, and nothing checked from the back; all
    // records were checked before the replay, and about half of them one
    // for one)
    assert_eq!(none, 0);
    let records = copies * recs.len();
    assert_eq!(runs[0].1, 0);
    assert_eq!(runs[1].1, records);
    assert!((records / 2 - 2..=records / 2 + 2).contains(&runs[2].1), "{} of {records}", runs[2].1);
    for (back, (got, _)) in runs.iter().enumerate() {
        assert_eq!(got.len(), want.len(), "{back}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{back}: result {i}");
        }
    }
}
