//! Large volumes, plain and compressed, read forwards record for record
//! as they read backwards, and compressed ones as plain ones, damaged
//! records and all.
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

/// Every result from the replay's position on, in its mode.
fn all(replay: &mut Replay) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let r = replay.fetch_archive();
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
fn forwards_matches_backwards() {
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
    let forwards = all(&mut replay);
    let end = replay.end().unwrap();
    replay.set_mode(Mode::Back, end, 0).unwrap();
    let mut backwards = all(&mut replay);
    backwards.reverse();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(forwards.len(), copies * recs.len());
    assert!(forwards == backwards, "forwards and backwards differ");
}

/// Three `.xz` volumes of a few megabytes each (decompressed on threads
/// of their own, the next one once the current one is) replay exactly as
/// the same volumes uncompressed: forwards, backwards and interpolated.
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
    let replay_all = |base: &Path, checking: bool| {
        let name = base.to_string_lossy();
        let archive = if checking { Archive::open_checking(&name, true) } else { Archive::open(&name) }.unwrap();
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
        let forwards = all(&mut replay);
        let end = replay.end().unwrap();
        replay.set_mode(Mode::Back, end, 0).unwrap();
        let backwards = all(&mut replay);
        // a sample every 20 minutes, from the start on
        replay.set_mode(Mode::Interp, start, 1_200_000_000_000).unwrap();
        let mut interp = Vec::new();
        loop {
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
    let want = replay_all(&plain.join("a"), false);
    let got_checking = replay_all(&xz.join("a"), true);
    let got = replay_all(&xz.join("a"), false);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(want.0.len(), 3 * copies * recs.len());
    assert!(want.2.len() > 100);
    assert!(got_checking == want, "xz volumes (opened as a context opens them) replay differently");
    assert!(got == want, "xz volumes replay differently");
}

/// A large plain volume with some records damaged here and there (a byte
/// changed halfway through them, which may leave the record as good, laid
/// out loosely, or broken), replays forwards exactly as the same volume
/// compressed: the same results and the same errors in the same places.
#[test]
fn damaged_records_read_plain_as_compressed() {
    let twins = Twins::new("damaged-ahead", AHEAD_MB);
    // past the first few copies (reading ahead starts a little way in),
    // one record in 97
    let damaged = twins.write_damaged(|copy, n| copy > 4 && n % 97 == 0);
    let Twins { dir, plain, xz, recs, copies, .. } = twins;
    let forwards = |base: &Path| {
        let mut replay = Replay::new(Archive::open(&base.to_string_lossy()).unwrap()).unwrap();
        replay.set_mode(Mode::Forw, Timestamp { sec: 0, nsec: 0 }, 0).unwrap();
        forwards_until_stuck(&mut replay, 4 * copies * recs.len(), |_| {})
    };
    let want = forwards(&xz.join("a"));
    let got = forwards(&plain.join("a"));
    std::fs::remove_dir_all(&dir).unwrap();
    let errors = want.iter().filter(|o| o.starts_with("error")).count();
    assert!(damaged > 20 && errors > 0, "{damaged} {errors}");
    assert!(want.len() > copies * recs.len() / 2, "{}", want.len());
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "result {i}");
    }
}

/// A large plain volume cut short (at several places, down to nothing)
/// while it is being replayed: the records before the cut read as they
/// did, and the replay ends with an error or the end of the archive,
/// never a signal (nothing is mapped).
#[test]
fn a_volume_cut_short_during_a_replay_ends_it_with_an_error() {
    let twins = Twins::new("cut-during", 2);
    twins.write_damaged(|_, _| false);
    let base = twins.plain.join("a").to_string_lossy().into_owned();
    let volume = std::fs::read(twins.plain.join("a.0")).unwrap();
    let replay = || {
        let mut r = Replay::new(Archive::open(&base).unwrap()).unwrap();
        r.set_mode(Mode::Forw, Timestamp { sec: 0, nsec: 0 }, 0).unwrap();
        r
    };
    let want = all(&mut replay());
    for cut in [volume.len() - 100, volume.len() / 2, 900, 0] {
        let mut r = replay();
        let mut got = vec![format!("{:?}", r.fetch_archive().unwrap())];
        std::fs::OpenOptions::new().write(true).open(twins.plain.join("a.0")).unwrap().set_len(cut as u64).unwrap();
        let end = loop {
            match r.fetch_archive() {
                Ok(x) => got.push(format!("{x:?}")),
                Err(e) => break e,
            }
            assert!(got.len() <= want.len(), "cut {cut}: more results than the volume held");
        };
        assert!(matches!(end, PmError::PM_ERR_LOGREC | PmError::PM_ERR_EOL), "cut {cut}: {end:?}");
        assert!(got.len() < want.len(), "cut {cut}: every record read past the cut");
        assert!(got[..] == want[..got.len()], "cut {cut}: results differ before the cut");
        std::fs::write(twins.plain.join("a.0"), &volume).unwrap();
    }
    std::fs::remove_dir_all(&twins.dir).unwrap();
}
