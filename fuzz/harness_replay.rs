// The replay fuzz target's body, shared by `cargo fuzz` (fuzz/fuzz_targets)
// and the corpus replay in `cargo test` (crates/pcp-archive/tests/fuzz_corpus.rs).
// It must never panic, hang or allocate without bound.
//
// Input: a flags byte, then sections, each a big-endian u32 length and that
// many bytes (0xffffffff: the file is absent): the .meta file, the .index
// file, then data volumes 0, 1, ... (up to 4). Flags: bit 0 turns counter
// wrapping on; bit 1 names volume 0 `.0.xz` (or, by bits 4 and 5: 1
// `.0.gz`, 2 `.0.bz2`, 3 `.0.Z`; its bytes go in as they are, so
// decompression and its checks are fuzzed too); bit 2 opens the archive
// as a context does (large instance-domain records left in the file, read
// when wanted), bit 3 then checks feature bits. The files are written to a scratch directory and replayed in
// every mode. `corpus/replay/seed-deferred-indom` is the fixture archive
// `v2` with a record of 400 instances of 29.1 appended to its metadata
// (as the test `large_instance_domains_wait_in_the_file_and_read_as_the_rest`
// makes it), opened as a context does.

use pcp_archive::archive::Archive;
use pcp_archive::raw::MetaRecord;
use pcp_archive::{Mode, Replay};
use pcp_core::{InDom, PmId};
use std::path::PathBuf;

fn sections(data: &[u8]) -> Vec<Option<&[u8]>> {
    let mut out = Vec::new();
    let mut at = 1;
    while at + 4 <= data.len() && out.len() < 6 {
        let len = u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
        at += 4;
        if len == u32::MAX {
            out.push(None);
            continue;
        }
        let end = (at + len as usize).min(data.len());
        out.push(Some(&data[at..end]));
        at = end;
    }
    out
}

/// Write the archive files for `data` into a scratch directory; the base
/// name to open.
fn write_archive(data: &[u8]) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("pcp-rs-fuzz-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).ok()?;
    let base = dir.join("a");
    let flags = *data.first()?;
    for (i, sec) in sections(data).into_iter().enumerate() {
        let Some(bytes) = sec else { continue };
        let name = match i {
            0 => "a.meta".to_string(),
            1 => "a.index".to_string(),
            2 if flags & 2 != 0 => match flags >> 4 & 3 {
                1 => "a.0.gz".to_string(),
                2 => "a.0.bz2".to_string(),
                3 => "a.0.Z".to_string(),
                _ => "a.0.xz".to_string(),
            },
            v => format!("a.{}", v - 2),
        };
        std::fs::write(dir.join(name), bytes).ok()?;
    }
    Some(base)
}

fn drain(r: &mut Replay, pmids: &[PmId], n: usize) {
    let wanted = |_: InDom, inst: i32| inst % 3 != 1;
    for _ in 0..n {
        if r.fetch(pmids, &wanted).is_err() {
            break;
        }
    }
}

/// Replay an archive made of fuzzed files in every mode.
pub fn replay_target(data: &[u8]) {
    let Some(base) = write_archive(data) else { return };
    let name = base.to_string_lossy();
    let opened = if data[0] & 4 != 0 { Archive::open_checking(&name, data[0] & 8 != 0) } else { Archive::open(&name) };
    if let Ok(archive) = opened {
        let mut pmids: Vec<PmId> = archive
            .meta()
            .iter()
            .filter_map(|m| match m {
                MetaRecord::Desc { desc, .. } => Some(desc.pmid),
                _ => None,
            })
            .take(64)
            .collect();
        pmids.push(PmId(0x3fff_ffff));
        if let Ok(mut r) = Replay::new(archive) {
            r.set_counter_wrap(data[0] & 1 != 0);
            let start = r.position();
            let end = r.end().unwrap_or(start);
            drain(&mut r, &pmids, 20);
            for _ in 0..10 {
                if r.fetch_archive().is_err() {
                    break;
                }
            }
            let _ = r.set_mode(Mode::Back, end, 0);
            drain(&mut r, &pmids, 20);
            for _ in 0..10 {
                if r.fetch_archive().is_err() {
                    break;
                }
            }
            let _ = r.set_mode(Mode::Interp, start, 500_000_000);
            drain(&mut r, &pmids, 20);
            let _ = r.fetch_archive();
            let _ = r.set_mode(Mode::Interp, end, -1_000_000_000);
            drain(&mut r, &pmids, 20);
            let _ = r.set_mode(Mode::Interp, start, 0);
            drain(&mut r, &pmids, 2);
            let _ = r.set_mode(Mode::Forw, end, 0);
            drain(&mut r, &pmids, 3);
        }
    }
    if let Some(dir) = base.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
