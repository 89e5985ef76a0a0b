//! A compressed volume that fails its check never gives wrong data: it is
//! refused as PCP 6.0.3 refuses it (read off `pminfo -a` and `pmval -a`
//! over the same copies of the `v3` fixture). (A plain volume cut short
//! while it is replayed: `read_ahead.rs`.)

use pcp_archive::archive::Archive;
use pcp_core::PmError;
use std::io::Write;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A copy of the `v3` fixture in a directory of its own, its volume
/// written by `volume` under the name `v3.0{suffix}`.
fn copy_with(tag: &str, suffix: &str, volume: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pcp-rs-damaged-data-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["v3.meta", "v3.index"] {
        std::fs::copy(fixtures().join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join(format!("v3.0{suffix}")), volume).unwrap();
    dir
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Every byte of a compressed copy flipped in turn (its header and
/// trailer aside): wherever the flip still decompresses to something, the
/// archive is refused at opening, with PCP's error, and never replays.
#[test]
fn a_compressed_volume_with_a_flipped_bit_is_refused() {
    let volume = std::fs::read(fixtures().join("v3.0")).unwrap();
    // PCP: gzip's failure is "Corrupted record" (PM_ERR_LOGREC); the xz
    // reader failing under the label is "Illegal label record"
    for (suffix, packed, error) in
        [(".gz", gzip(&volume), PmError::PM_ERR_LOGREC), (".xz", xz(&volume), PmError::PM_ERR_LABEL)]
    {
        let mut refused = 0;
        for at in (20..packed.len() - 40).step_by(7) {
            let mut bad = packed.clone();
            bad[at] ^= 0x10;
            let dir = copy_with(&format!("flip{suffix}"), suffix, &bad);
            let name = dir.join("v3").to_string_lossy().into_owned();
            match Archive::open_checking(&name, true) {
                Err(e) => {
                    assert_eq!(e, error, "{suffix} byte {at}");
                    refused += 1;
                }
                Ok(a) => panic!("{suffix} byte {at}: opened {:?}", a.label().start),
            }
            std::fs::remove_dir_all(&dir).unwrap();
        }
        assert!(refused > 10, "{suffix}: {refused}");
    }
}
