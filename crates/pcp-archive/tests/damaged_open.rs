//! Opening archives whose files are cut short, padded or missing: the
//! error is the one `pmNewContext(PM_CONTEXT_ARCHIVE)` gives, in
//! `__pmLogOpen`'s order (first volume, index, metadata).
//!
//! The copies are made from tests/fixtures/v2.* and v3.* (see
//! tests/fixtures.rs for how those were made). Every expected answer was
//! read off PCP 6.0.3's `pminfo -a COPY -d sample.colour` on the same
//! copy ("Cannot open archive ...: Empty archive log file" is
//! `PM_ERR_NODATA`, "Illegal label record ..." `PM_ERR_LABEL`, "Corrupted
//! record ..." `PM_ERR_LOGREC`, "Archive feature not supported"
//! `PM_ERR_FEATURE`, "Missing PCP archive log file" `PM_ERR_LOGFILE`);
//! scripts/differential.sh compares the tools with PCP's on such copies.

use pcp_archive::archive::Archive;
use pcp_core::PmError;
use std::path::{Path, PathBuf};

const SUFFIXES: [&str; 3] = ["0", "meta", "index"];

/// How one file of the copy is changed.
#[derive(Clone, Copy, Debug)]
enum Damage {
    /// Cut to this many bytes.
    Cut(usize),
    /// Cut to the label's size plus (or minus) this many bytes.
    Label(isize),
    /// This many bytes (of this value) added at the end.
    Pad(usize, u8),
    /// The last byte removed.
    LastByte,
    /// The byte at this offset set to this value.
    Poke(usize, u8),
    /// The file removed.
    Gone,
}

struct Copy {
    dir: PathBuf,
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn fixture(version: &str, suffix: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(format!("{version}.{suffix}"));
    std::fs::read(path).expect("fixture")
}

/// A copy of the fixture archive `version` with `damage` done to its
/// `suffix` file; `tag` keeps copies made at once apart.
fn damaged(version: &str, suffix: &str, damage: Damage, tag: usize) -> Copy {
    let dir = std::env::temp_dir().join(format!("pcp-rs-damaged-{}-{version}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let label: usize = if version == "v3" { 808 } else { 132 };
    for s in SUFFIXES {
        let mut data = fixture(version, s);
        if s == suffix {
            match damage {
                Damage::Cut(n) => data.truncate(n),
                Damage::Label(d) => data.truncate(label.checked_add_signed(d).expect("a size")),
                Damage::Pad(n, b) => data.extend(std::iter::repeat_n(b, n)),
                Damage::LastByte => {
                    data.pop();
                }
                Damage::Poke(at, b) => data[at] = b,
                Damage::Gone => continue,
            }
        }
        std::fs::write(dir.join(format!("a.{s}")), data).expect("copy written");
    }
    Copy { dir }
}

/// Open the copy as a context opens it, feature bits checked.
fn open(copy: &Copy) -> Result<(), PmError> {
    Archive::open_checking(&copy.dir.join("a").to_string_lossy(), true).map(|_| ()).map_err(|e| e.code())
}

#[test]
fn damaged_files_give_libpcps_errors() {
    use Damage::*;
    let nodata = Err(PmError::PM_ERR_NODATA);
    let label = Err(PmError::PM_ERR_LABEL);
    let logrec = Err(PmError::PM_ERR_LOGREC);
    let opens = Ok(());
    // (file, damage, what libpcp answers), for both versions
    let cases = [
        // too short for the label's first two words: the end of the file
        // is met first
        ("0", Cut(0), nodata),
        ("0", Cut(3), nodata),
        ("0", Cut(7), nodata),
        ("meta", Cut(0), nodata),
        ("meta", Cut(7), nodata),
        ("index", Cut(3), nodata),
        // a label cut short
        ("0", Cut(8), label),
        ("0", Label(-1), label),
        ("meta", Label(-1), label),
        ("index", Cut(8), label),
        // a label and nothing more: an empty file, each of the three
        ("0", Label(0), nodata),
        ("meta", Label(0), nodata),
        ("index", Label(0), nodata),
        // a volume's and an index's damage after the label shows later
        ("0", Label(1), opens),
        ("0", Label(4), opens),
        ("0", LastByte, opens),
        ("index", Label(1), opens),
        ("index", Pad(3, 0), opens),
        // metadata with no metric in it
        ("meta", Label(1), logrec),
        ("meta", Label(4), logrec),
        // a record's header cut short at the end of the metadata is its
        // end; a whole header of no length, or a record cut short, is not
        ("meta", Pad(3, 0), opens),
        ("meta", Pad(7, 0xff), opens),
        ("meta", Pad(8, 0), logrec),
        ("meta", LastByte, logrec),
        // the index or the metadata from another host (the first letter
        // of the host name changed), or from another volume
        ("index", Poke(24, b'X'), label),
        ("meta", Poke(24, b'X'), label),
        ("meta", Poke(23, 5), label),
        ("index", Poke(23, 5), label),
        ("0", Poke(23, 5), label),
        // files missing: the metadata, with the others there
        ("meta", Gone, Err(PmError::PM_ERR_LOGFILE)),
        ("index", Gone, opens),
    ];
    let mut tag = 0;
    for version in ["v2", "v3"] {
        for (suffix, damage, want) in cases {
            // the v3 label's fields are further on
            let damage = match (version, damage) {
                ("v3", Poke(24, b)) => Poke(36, b),
                ("v3", Poke(23, b)) => Poke(27, b),
                (_, d) => d,
            };
            tag += 1;
            let copy = damaged(version, suffix, damage, tag);
            assert_eq!(open(&copy), want, "{version}.{suffix} {damage:?}");
        }
    }
}

#[test]
fn unknown_feature_bits_are_refused_in_every_label() {
    for (tag, suffix) in SUFFIXES.iter().enumerate() {
        // the lowest feature bit of a version 3 label
        let copy = damaged("v3", suffix, Damage::Poke(31, 1), 100 + tag);
        assert_eq!(open(&copy), Err(PmError::PM_ERR_FEATURE), "{suffix}");
        let name = copy.dir.join("a").to_string_lossy().into_owned();
        assert!(Archive::open(&name).is_ok(), "{suffix}: opened without checking feature bits");
    }
}

#[test]
fn no_files_at_all_is_enoent() {
    let dir = std::env::temp_dir().join(format!("pcp-rs-damaged-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let name = dir.join("a").to_string_lossy().into_owned();
    let got = Archive::open(&name).map(|_| ()).unwrap_err();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(got.code(), PmError::from_errno(2));
    // the error names the archive
    assert_eq!(got.path(), Some(std::path::Path::new(&name)));
    assert_eq!(got.to_string(), format!("Cannot open archive \"{name}\": No such file or directory"));
}

/// An archive from another host is refused (`PM_ERR_LOGHOST`) before its
/// metadata's records are read, as libpcp checks the labels' consistency
/// first: PCP 6.0.3's `pminfo -a a,b` says "Archives differ by host"
/// where b's metadata is also cut short, and `-a b,a` "Corrupted record".
#[test]
fn another_host_is_found_before_damaged_metadata() {
    use pcp_archive::archive::ArchiveSet;
    let a = damaged("v2", "index", Damage::Pad(0, 0), 200);
    let b = damaged("v2", "meta", Damage::LastByte, 201);
    // b's host name starts with another letter in all three labels
    for s in SUFFIXES {
        let path = b.dir.join(format!("a.{s}"));
        let mut data = std::fs::read(&path).expect("copy");
        data[24] = b'X';
        std::fs::write(&path, data).expect("copy written");
    }
    let (a, b) = (a.dir.join("a").to_string_lossy().into_owned(), b.dir.join("a").to_string_lossy().into_owned());
    // the error names the archive of the list that failed
    let open =
        |names: String| ArchiveSet::open(&names, true).map(|_| ()).map_err(|e| (e.code(), e.path().map(Into::into)));
    let failed = |code, name: &str| Err((code, Some(std::path::PathBuf::from(name))));
    assert_eq!(open(format!("{a},{b}")), failed(PmError::PM_ERR_LOGHOST, &b));
    assert_eq!(open(format!("{b},{a}")), failed(PmError::PM_ERR_LOGREC, &b));
}
