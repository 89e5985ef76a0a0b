//! A data volume's bytes, read at any offset.
//!
//! A plain volume is read where it lies, with `pread`. A compressed one is
//! decompressed on a thread of its own, ahead of the reader, into an
//! unlinked temporary file (as libpcp decompresses gzip and bzip2 volumes),
//! so that an open archive holds none of it in memory. Decompressed bytes
//! are handed out only once the format's check over them has passed: an
//! `.xz` block's once the decompressor has read past the block's check
//! (the blocks are found in the file's index), a gzip or bzip2 volume's once
//! the whole stream has decompressed with its checksums right. A volume
//! whose check fails is never read from: reading it is an error.
//!
//! An `.xz` file whose index cannot be read (one cut short) does not open,
//! as with libpcp's xz reader; `compress` (`.Z`) data has no check and is
//! handed out as it decompresses.

use crate::files::{compression_of, Compression, Decoder};
use pcp_core::PmError;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// How much is decompressed at a time.
const STEP: usize = 1 << 20;

/// What a volume that does not decompress is, as libpcp reports it
/// (`gzip -dc` or `bzip2 -dc` failing, its xz reader failing).
const FAILED: PmError = PmError::PM_ERR_LOGREC;

/// An open data volume.
#[derive(Debug)]
pub(crate) struct Volume {
    file: File,
    /// `None` for a plain file.
    spool: Option<Arc<Spool>>,
    /// The size of the contents, where it is known before decompressing:
    /// a plain file's, an `.xz` file's from its index.
    known_size: Option<u64>,
    /// What readers found of the records of a compressed volume (whose
    /// decompressed bytes do not change), by where they start
    /// ([`Volume::layout`]).
    layouts: Mutex<Layouts>,
}

/// Record layouts by where the records start, and how many value lists
/// they hold in all.
#[derive(Debug, Default)]
struct Layouts {
    /// A record's length, and its layout once it has been read twice
    /// (read once, as a dump reads it, nothing of it is worth keeping).
    by_start: HashMap<i64, (usize, Option<Layout>)>,
    lists: usize,
}

/// Where a record's value lists are, and their PMIDs, as a reader found
/// them checking its layout.
pub(crate) type Layout = Arc<[(u32, u32)]>;

/// How many value lists' places a volume keeps, in all its records'
/// layouts (8 bytes each: 32 MB at most; replaying
/// `pcp-pidstat-process-args` keeps 21 MB).
const LAYOUTS_MOST: usize = 1 << 22;

/// What the decompressing thread shares with the readers.
#[derive(Debug, Default)]
struct Spool {
    state: Mutex<Progress>,
    changed: Condvar,
    /// The readers have gone: the thread stops.
    gone: AtomicBool,
}

#[derive(Debug, Default)]
struct Progress {
    /// The bytes from the start that may be handed out.
    ready: u64,
    /// Set once the thread has stopped: the size of the contents
    /// (`ready`), or the error reading past `ready` meets.
    end: Option<Result<(), PmError>>,
}

impl Drop for Volume {
    fn drop(&mut self) {
        if let Some(s) = &self.spool {
            s.gone.store(true, Ordering::Relaxed);
        }
    }
}

impl Volume {
    /// Open the volume at `path`, starting to decompress it if it is
    /// compressed.
    pub fn open(path: &Path) -> Result<Volume, PmError> {
        let name = path.to_string_lossy();
        let kind = compression_of(&name);
        let input = File::open(path).map_err(|e| io_err(&e))?;
        if kind == Compression::None {
            let plain_size = input.metadata().map_err(|e| io_err(&e))?.len();
            return Ok(Volume { file: input, spool: None, known_size: Some(plain_size), layouts: Mutex::default() });
        }
        let decoder = crate::files::decoder(path).map_err(|e| io_err(&e))?;
        #[cfg_attr(not(feature = "xz"), allow(unused_mut))]
        let mut known_size = None;
        let checks = match &decoder {
            // (a file whose index cannot be read, as one cut short, does
            // not open: libpcp's xz reader needs the index)
            #[cfg(feature = "xz")]
            Decoder::Xz(_) if name.ends_with(".xz") => {
                let blocks = crate::files::xz_blocks(&input).ok_or(FAILED)?;
                known_size = Some(blocks.last().map_or(0, |b| b.1));
                Checks::Blocks(blocks)
            }
            Decoder::Unchecked(_) => Checks::None,
            _ => Checks::AtEnd,
        };
        let mut tmp = crate::files::temp_file().map_err(|e| io_err(&e))?;
        let file = tmp.try_clone().map_err(|e| io_err(&e))?;
        let spool = Arc::new(Spool::default());
        let shared = Arc::clone(&spool);
        std::thread::Builder::new()
            .name("pcp-inflate".into())
            .spawn(move || {
                // (readers waiting are told, whatever ends the thread)
                let ended = Ended(&shared);
                ended.0.fill(decoder, &mut tmp, &checks);
            })
            .map_err(|e| io_err(&e))?;
        Ok(Volume { file, spool: Some(spool), known_size, layouts: Mutex::default() })
    }

    /// The layout kept for the record of `len` bytes at `at`
    /// ([`Volume::keep_layout`]).
    pub fn layout(&self, at: i64, len: usize) -> Option<Layout> {
        let map = self.layouts.lock().ok()?;
        map.by_start.get(&at).filter(|(l, _)| *l == len).and_then(|(_, layout)| layout.clone())
    }

    /// Keep what a reader found of the record of `len` bytes at `at`, if
    /// the volume is compressed (its bytes will not change; a plain file
    /// may be written again while it is read) and the record has been
    /// read before.
    pub fn keep_layout(&self, at: i64, len: usize, layout: &[(u32, u32)]) {
        if self.spool.is_none() {
            return;
        }
        if let Ok(mut map) = self.layouts.lock() {
            if map.lists + layout.len() > LAYOUTS_MOST {
                return;
            }
            match map.by_start.get(&at) {
                Some((l, None)) if *l == len => {
                    map.lists += layout.len();
                    map.by_start.insert(at, (len, Some(layout.into())));
                }
                Some(_) => {}
                None => {
                    map.by_start.insert(at, (len, None));
                }
            }
        }
    }

    /// Is the volume compressed?
    pub fn is_compressed(&self) -> bool {
        self.spool.is_some()
    }

    /// Has a compressed volume been decompressed (all of it, or up to an
    /// error)? Always for a plain one.
    pub fn settled(&self) -> bool {
        self.spool.as_ref().is_none_or(|s| s.state.lock().is_ok_and(|p| p.end.is_some()))
    }

    /// The size of the contents (decompressed). For a compressed volume
    /// but an `.xz` one this waits for all of it; one that does not
    /// decompress is its error.
    pub fn size(&self) -> Result<u64, PmError> {
        if let Some(n) = self.known_size {
            return Ok(n);
        }
        let Some(spool) = &self.spool else { return Ok(0) };
        let p = spool.wait(|p| p.end.is_some())?;
        match p.end {
            Some(Ok(())) => Ok(p.ready),
            Some(Err(e)) => Err(e),
            None => Err(PmError::from_errno(5)),
        }
    }

    /// Read up to `buf.len()` bytes at `off` (fewer only at the end):
    /// how many were read. Bytes of a compressed volume that failed its
    /// check, or did not decompress, are the volume's error.
    pub fn read_at(&self, off: u64, buf: &mut [u8]) -> Result<usize, PmError> {
        let want = match &self.spool {
            None => buf.len().min(self.known_size.unwrap_or(0).saturating_sub(off) as usize),
            Some(spool) => {
                let end = off.saturating_add(buf.len() as u64);
                let p = spool.wait(|p| p.ready >= end || p.end.is_some())?;
                if p.ready < end {
                    if let Some(Err(e)) = p.end {
                        return Err(e);
                    }
                }
                buf.len().min(p.ready.saturating_sub(off) as usize)
            }
        };
        let mut got = 0;
        while got < want {
            match self.file.read_at(&mut buf[got..want], off + got as u64) {
                // (a plain file cut short since it was opened)
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err(&e)),
            }
        }
        Ok(got)
    }
}

/// Ends a decompressing thread's work however the thread ends: readers
/// still waiting then get an error rather than wait for ever.
struct Ended<'a>(&'a Spool);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        let unfinished = self.0.state.lock().map_or(true, |p| p.end.is_none());
        if unfinished {
            self.0.publish(0, Some(Err(PmError::from_errno(5))));
        }
    }
}

/// When decompressed bytes may be handed out.
enum Checks {
    /// `.xz` blocks, in order: where each block's check ends in the
    /// compressed file, and where its contents end.
    #[cfg_attr(not(feature = "xz"), allow(dead_code))]
    Blocks(Vec<(u64, u64)>),
    /// Once the whole stream has decompressed.
    AtEnd,
    /// As they come (no check to wait for).
    None,
}

impl Spool {
    /// Wait until `done` holds of the progress; a copy of it.
    fn wait(&self, done: impl Fn(&Progress) -> bool) -> Result<Progress, PmError> {
        let mut p = self.state.lock().map_err(|_| PmError::from_errno(5))?;
        while !done(&p) {
            p = self.changed.wait(p).map_err(|_| PmError::from_errno(5))?;
        }
        Ok(Progress { ready: p.ready, end: p.end })
    }

    fn publish(&self, ready: u64, end: Option<Result<(), PmError>>) {
        if let Ok(mut p) = self.state.lock() {
            p.ready = p.ready.max(ready);
            if end.is_some() {
                p.end = end;
            }
        }
        self.changed.notify_all();
    }

    /// Decompress `input` into `out`, handing out what `checks` allow as
    /// they pass.
    fn fill(&self, mut input: Decoder, out: &mut File, checks: &Checks) {
        let mut buf = vec![0u8; STEP];
        let mut written = 0u64;
        let mut next_block = 0;
        loop {
            if self.gone.load(Ordering::Relaxed) {
                self.publish(0, Some(Err(PmError::from_errno(5))));
                return;
            }
            let n = match input.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    // (what passed its check stays ready)
                    self.publish(0, Some(Err(FAILED)));
                    return;
                }
            };
            if n == 0 {
                self.publish(written, Some(Ok(())));
                return;
            }
            if let Err(e) = out.write_all(&buf[..n]) {
                self.publish(0, Some(Err(io_err(&e))));
                return;
            }
            written += n as u64;
            match checks {
                Checks::None => self.publish(written, None),
                Checks::Blocks(blocks) => {
                    // a block whose check the decompressor has read past
                    // has passed it
                    let consumed = input.total_in();
                    let mut ready = None;
                    while let Some(&(check_end, contents_end)) = blocks.get(next_block) {
                        if consumed < check_end || written < contents_end {
                            break;
                        }
                        ready = Some(contents_end);
                        next_block += 1;
                    }
                    if let Some(r) = ready {
                        self.publish(r, None);
                    }
                }
                Checks::AtEnd => {}
            }
        }
    }
}

fn io_err(e: &io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(5))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("pcp-rs-volume-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn contents() -> Vec<u8> {
        (0..3_000_000u32).flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 13).to_be_bytes()).collect()
    }

    fn read_all(v: &Volume) -> Result<Vec<u8>, PmError> {
        let size = v.size()?;
        let mut out = vec![0; size as usize];
        assert_eq!(v.read_at(0, &mut out)?, out.len());
        Ok(out)
    }

    fn compressed(dir: &Path, suffix: &str, data: &[u8]) -> std::path::PathBuf {
        let path = dir.join(format!("a.0{suffix}"));
        let mut f = File::create(&path).unwrap();
        match suffix {
            ".gz" => {
                let mut e = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap();
            }
            ".bz2" => {
                let mut e = bzip2::write::BzEncoder::new(f, bzip2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap();
            }
            ".xz" => {
                let mut e = liblzma::write::XzEncoder::new(f, 0);
                e.write_all(data).unwrap();
                e.finish().unwrap();
            }
            _ => f.write_all(data).unwrap(),
        }
        path
    }

    #[test]
    fn every_kind_reads_back_what_was_written() {
        let dir = temp_dir("kinds");
        let data = contents();
        for suffix in ["", ".gz", ".bz2", ".xz"] {
            let v = Volume::open(&compressed(&dir, suffix, &data)).unwrap();
            assert_eq!(v.is_compressed(), !suffix.is_empty());
            assert_eq!(read_all(&v).unwrap(), data, "{suffix}");
            let mut some = [0u8; 10];
            assert_eq!(v.read_at(data.len() as u64 - 4, &mut some), Ok(4));
            assert_eq!(v.read_at(data.len() as u64 + 4, &mut some), Ok(0));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A flipped bit in a compressed volume: no byte of it is handed out
    /// (the stream's check fails), where plain decompressing would have
    /// given bytes that are wrong.
    #[test]
    fn a_volume_failing_its_check_hands_out_nothing() {
        let dir = temp_dir("flip");
        let data = contents();
        for (suffix, error) in
            [(".gz", PmError::PM_ERR_LOGREC), (".bz2", PmError::PM_ERR_LOGREC), (".xz", PmError::PM_ERR_LOGREC)]
        {
            let path = compressed(&dir, suffix, &data);
            let mut bytes = std::fs::read(&path).unwrap();
            let at = bytes.len() / 2;
            bytes[at] ^= 0x10;
            std::fs::write(&path, bytes).unwrap();
            let v = Volume::open(&path).unwrap();
            let mut head = [0u8; 16];
            assert_eq!(v.read_at(0, &mut head), Err(error), "{suffix}");
            // (an .xz file's index gives its size)
            let size = if suffix == ".xz" { Ok(data.len() as u64) } else { Err(error) };
            assert_eq!(v.size(), size, "{suffix}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A volume in a format whose feature is off reads as one that does
    /// not decompress (libpcp's `gzip -dc` failing); with it on, it reads.
    #[test]
    fn a_format_left_out_reads_as_a_volume_that_does_not_decompress() {
        let dir = temp_dir("left-out");
        let data = contents()[..1 << 17].to_vec();
        for (suffix, built) in
            [(".gz", cfg!(feature = "gzip")), (".bz2", cfg!(feature = "bzip2")), (".xz", cfg!(feature = "xz"))]
        {
            let v = Volume::open(&compressed(&dir, suffix, &data)).unwrap();
            let expected = if built { Ok(data.clone()) } else { Err(PmError::PM_ERR_LOGREC) };
            assert_eq!(read_all(&v), expected, "{suffix}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An `.xz` volume of several blocks hands out a block once its check
    /// has passed, and nothing of a damaged block or after it.
    #[test]
    fn xz_blocks_are_handed_out_as_their_checks_pass() {
        let dir = temp_dir("blocks");
        let data = contents();
        let path = dir.join("a.0.xz");
        let status = std::process::Command::new("xz")
            .args(["-0", "--block-size=1MiB", "-c"])
            .stdin(std::process::Stdio::piped())
            .stdout(File::create(&path).unwrap())
            .spawn()
            .and_then(|mut c| {
                c.stdin.take().unwrap().write_all(&data)?;
                c.wait()
            });
        if status.is_err() {
            // (no xz program: made with one block a stream, concatenated)
            let mut f = File::create(&path).unwrap();
            for part in data.chunks(1 << 20) {
                let mut e = liblzma::write::XzEncoder::new(&mut f, 0);
                e.write_all(part).unwrap();
                e.finish().unwrap();
            }
        }
        // cut short: no index, and no volume
        let whole = std::fs::read(&path).unwrap();
        std::fs::write(dir.join("cut.0.xz"), &whole[..whole.len() / 2]).unwrap();
        assert_eq!(Volume::open(&dir.join("cut.0.xz")).err(), Some(PmError::PM_ERR_LOGREC));
        let blocks = crate::files::xz_blocks(&File::open(&path).unwrap()).unwrap();
        assert!(blocks.len() >= 10, "{}", blocks.len());
        assert_eq!(read_all(&Volume::open(&path).unwrap()).unwrap(), data);
        // damage in the last block: the others read
        let mut bytes = std::fs::read(&path).unwrap();
        let (second_last, last) = (blocks[blocks.len() - 2], blocks[blocks.len() - 1]);
        bytes[((second_last.0 + last.0) / 2) as usize] ^= 0x01;
        std::fs::write(&path, bytes).unwrap();
        let v = Volume::open(&path).unwrap();
        let mut first = vec![0u8; 1 << 20];
        assert_eq!(v.read_at(0, &mut first), Ok(1 << 20));
        assert_eq!(first, data[..1 << 20]);
        let mut tail = [0u8; 8];
        assert_eq!(v.read_at(second_last.1 - 8, &mut tail), Ok(8));
        assert!(v.read_at(second_last.1, &mut tail).is_err());
        assert_eq!(v.size(), Ok(data.len() as u64));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Layouts are kept for a compressed volume only, from a record's
    /// second reading, and given back for a record of the same length at
    /// the same place.
    #[test]
    fn layouts_are_kept_for_compressed_volumes() {
        let dir = temp_dir("layouts");
        let data = contents();
        let plain = Volume::open(&compressed(&dir, "", &data)).unwrap();
        let xz = Volume::open(&compressed(&dir, ".xz", &data)).unwrap();
        for v in [&plain, &xz] {
            v.keep_layout(100, 40, &[(1, 12), (2, 24)]);
        }
        // (read once: nothing kept yet)
        assert_eq!(xz.layout(100, 40), None);
        for v in [&plain, &xz] {
            v.keep_layout(100, 40, &[(1, 12), (2, 24)]);
        }
        assert_eq!(plain.layout(100, 40), None);
        assert_eq!(xz.layout(100, 40).as_deref(), Some(&[(1, 12), (2, 24)][..]));
        assert_eq!(xz.layout(100, 41), None);
        assert_eq!(xz.layout(104, 40), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A plain volume cut short after it was opened reads short, and never
    /// ends the process.
    #[test]
    fn a_plain_volume_cut_short_reads_short() {
        let dir = temp_dir("cut");
        let data = contents();
        let path = compressed(&dir, "", &data);
        let v = Volume::open(&path).unwrap();
        File::options().write(true).open(&path).unwrap().set_len(100).unwrap();
        let mut buf = vec![0u8; 4096];
        assert_eq!(v.read_at(0, &mut buf), Ok(100));
        assert_eq!(v.read_at(8192, &mut buf), Ok(0));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
