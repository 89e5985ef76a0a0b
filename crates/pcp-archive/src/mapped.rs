//! Windows of a plain data volume mapped into memory instead of read
//! (and a small first volume mapped whole ahead of a replay:
//! [`crate::Premap`]; a large one mapped from where reading ahead starts,
//! its windows parts of that mapping brought in by the read-ahead thread,
//! [`crate::ahead`]; and the plain `.meta` file of an archive opened for
//! a replay, while its records are decoded).
//!
//! A window read with `read(2)` has the kernel copy each byte of the
//! volume into fresh memory of our own, which must first be faulted in and
//! zeroed. A read-only mapping of the same bytes uses the page cache's
//! pages as they are. Replaying the QA archive `20180102` (a 7 MB volume,
//! 845 records) with pmval at `-t 10`, the copying and the fresh pages were
//! about a quarter of the work of the thread that fetches ahead, and
//! mapping made the whole run about 0.5 ms (6%) faster by median
//! (BENCHMARKS.md).
//!
//! This is the crate's one module that needs `unsafe`: mapping a file is
//! sound only while no one shrinks the file under the mapping, which the
//! compiler cannot know. If another process truncates a volume while a
//! window over the bytes it lost is mapped, touching them raises `SIGBUS`
//! and ends the process, where a read would have come up short. PCP never
//! shrinks a volume in place, as far as we know: pmlogger only appends to
//! the volume and the `.meta` file it writes, and the tools that rewrite,
//! merge, reduce or compress archives (pmlogrewrite, pmlogextract,
//! pmlogreduce, and pmlogger_daily with xz) write new files, then rename
//! or remove the old ones, which leaves a mapping of the old file intact. Only a window's bytes are mapped, and only while the
//! file still holds all of them (a volume found shorter than when it was
//! opened is read instead, and comes up short as a read does); each
//! mapping goes as soon as no record refers to its window (a first volume
//! mapped whole, once nothing reads it any more).
#![allow(unsafe_code)]

use std::fs::File;
use std::sync::Arc;

/// A window's bytes mapped from a file: a mapping of its own, or a part
/// of one that windows share ([`Mapped::part`]).
#[derive(Debug)]
pub(crate) struct Mapped {
    map: Arc<memmap2::Mmap>,
    /// Where the window starts in the mapping (bytes mapped before it: a
    /// mapping starts on a page, and parts of one start anywhere).
    skip: usize,
    len: usize,
}

impl Mapped {
    /// Let go of the pages mapped (`MADV_DONTNEED`): the mapping stays,
    /// and a byte read after this is read from the file again, as it is in
    /// the page cache. Unmapping pages is work the process's exit would
    /// otherwise do after its last output (about 0.15 ms for a 7 MB volume
    /// here; BENCHMARKS.md).
    pub fn release_pages(&self) {
        // SAFETY: the mapping is private and read-only, so no byte of it
        // was ever written: dropping its pages loses nothing, and each is
        // read from the same file when touched again (bytes another
        // process changes in the file were visible through the mapping
        // anyway: a private page is only a copy once written). Failing to
        // drop them changes nothing either.
        // Only this window's pages go, with the pages its start and end
        // are on, which the windows beside it may share (a page of theirs
        // let go is read again from the file when touched).
        let _ = unsafe { self.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, self.skip, self.len) };
    }

    pub fn as_slice(&self) -> &[u8] {
        self.map.get(self.skip..self.skip + self.len).unwrap_or_default()
    }

    /// The `len` bytes at `start` of this window, as a window of their own
    /// sharing the mapping (which goes once no window of it is left).
    pub fn part(&self, start: usize, len: usize) -> Option<Mapped> {
        let end = start.checked_add(len).filter(|&e| e <= self.len)?;
        Some(Mapped { map: Arc::clone(&self.map), skip: self.skip + start, len: end - start })
    }

    /// Bring in the window's pages at once (`MADV_POPULATE_READ`, one call
    /// where [`Mapped::touch_pages`] takes a fault for every 16 pages;
    /// touching them where the kernel, older than 5.14, does not know it:
    /// `EINVAL`). Over a 137 MB volume, 1 MB at a time: 6 ms, the unmapping
    /// 1.7, where copying it with `pread` took 19-24 (BENCHMARKS.md). Any
    /// other failure (the file cut short since it was mapped) leaves the
    /// pages to come in as they are read.
    pub fn populate(&self) {
        const EINVAL: i32 = 22;
        if let Err(e) = self.map.advise_range(memmap2::Advice::PopulateRead, self.skip, self.len) {
            if e.raw_os_error() == Some(EINVAL) {
                self.touch_pages();
            }
        }
    }

    /// Bring in every page by reading a byte of each, for a thread to do
    /// ahead of the reader. A mapping is not asked to be populated when
    /// made (`MAP_POPULATE`): the kernel then looks up each page on its
    /// own, where a fault maps the page's neighbours in the page cache
    /// with it (16 at a time by default). For the 7 MB volume of
    /// `20180102`, touching each page took 0.28 ms here, populating 0.42.
    pub fn touch_pages(&self) {
        let sum = self.as_slice().iter().step_by(4096).fold(0u8, |a, &b| a ^ b);
        std::hint::black_box(sum);
    }
}

/// The `len` bytes of `file` at `off`, mapped read-only (each page is
/// brought in as it is first read); `None` where the file no longer holds them all or the system
/// will not map them (the caller reads them instead).
pub(crate) fn map(file: &File, off: u64, len: usize) -> Option<Mapped> {
    const PAGE: u64 = 4096;
    if len == 0 || file.metadata().ok()?.len() < off.checked_add(len as u64)? {
        return None;
    }
    // (on systems with larger pages the offset is rejected, and the
    // window read instead)
    let start = off - off % PAGE;
    let skip = (off - start) as usize;
    // SAFETY: the mapping is private and read-only, and covers only bytes
    // the file holds (just checked); see the module's documentation for
    // the one way another process can still take them away.
    let map = unsafe { memmap2::MmapOptions::new().offset(start).len(skip + len).map(file) }.ok()?;
    Some(Mapped { map: Arc::new(map), skip, len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A file of 50,000 bytes of a pattern, named for the test: its bytes,
    /// its path and the file open.
    fn test_file(test: &str) -> (Vec<u8>, PathBuf, File) {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let path = std::env::temp_dir().join(format!("pcp-rs-mapped-{test}-{}", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        (data, path, file)
    }

    /// Windows at any offset (on a page or not) and of any length up to
    /// the file's end hold the file's bytes, before and after their pages
    /// are brought in, and after they are let go; an empty one is not
    /// mapped.
    #[test]
    fn windows_hold_the_files_bytes() {
        let (data, path, file) = test_file("test");
        for (off, len) in [(0, 1), (0, 50_000), (1, 4095), (4095, 2), (4096, 4096), (12_345, 30_000), (49_999, 1)] {
            let m = map(&file, off as u64, len).unwrap();
            assert_eq!(m.as_slice(), &data[off..off + len], "{off} {len}");
            // brought in ahead, or not
            m.touch_pages();
            assert_eq!(m.as_slice(), &data[off..off + len], "{off} {len}");
            // and again once its pages are let go
            m.release_pages();
            assert_eq!(m.as_slice(), &data[off..off + len], "{off} {len}");
        }
        assert!(map(&file, 100, 0).is_none());
        // not past the file's end, nor once the file is cut short
        assert!(map(&file, 49_999, 2).is_none());
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(20_000).unwrap();
        assert!(map(&file, 12_345, 30_000).is_none());
        assert_eq!(map(&file, 12_345, 7_655).unwrap().as_slice(), &data[12_345..20_000]);
        std::fs::remove_file(&path).unwrap();
    }

    /// Parts of one mapping hold their bytes, brought in or let go each on
    /// its own; a part past the window's end is refused; bringing in the
    /// pages of a part the file no longer holds leaves them be (touching
    /// them would end the process).
    #[test]
    fn parts_share_a_mapping() {
        let (data, path, file) = test_file("parts");
        let whole = map(&file, 100, 49_900).unwrap();
        let parts: Vec<(usize, usize, Mapped)> = [(0, 5000), (5000, 9_000), (14_000, 35_900), (49_899, 1), (7, 0)]
            .into_iter()
            .map(|(at, len)| (at, len, whole.part(at, len).unwrap()))
            .collect();
        for (at, len, part) in &parts {
            part.populate();
            assert_eq!(part.as_slice(), &data[100 + at..100 + at + len], "{at} {len}");
        }
        parts[1].2.release_pages();
        for (at, len, part) in &parts {
            assert_eq!(part.as_slice(), &data[100 + at..100 + at + len], "{at} {len}");
        }
        assert!(whole.part(49_000, 901).is_none());
        assert!(whole.part(usize::MAX, 2).is_none());
        drop(whole);
        assert_eq!(parts[2].2.as_slice(), &data[14_100..50_000]);
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(8_192).unwrap();
        parts[2].2.populate();
        assert_eq!(parts[0].2.as_slice(), &data[100..5100]);
        std::fs::remove_file(&path).unwrap();
    }
}
