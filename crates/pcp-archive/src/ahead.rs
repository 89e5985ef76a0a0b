//! Reading a plain volume ahead of a reader going forwards through it.
//!
//! Replaying an archive reads every record in order. For a large
//! uncompressed volume, a thread of its own maps the volume from the
//! first record read ahead to its end (one mapping), and brings in the
//! pages of a window at a time a few windows ahead of the reader
//! (`MADV_POPULATE_READ`), while the reader checks the records before.
//! The pages of windows the reader has passed are let go again. This
//! thread used to copy each window into memory of its own with `pread`,
//! a third of the time over a 137 MB volume; bringing in the pages costs
//! about a third of the copying, and replaying that volume with pmval
//! became about 20% faster (BENCHMARKS.md). As with every mapping
//! ([`crate::mapped`]), a volume cut short by another process while it is
//! mapped ends the process with `SIGBUS`.
//!
//! Each window holds whole records: the thread starts at a record and
//! follows the records' length words, cutting a window after the last
//! record that fits in [`WINDOW`] bytes (a longer record gets a window of
//! its own). Where the lengths stop making sense the thread stops, and the
//! reader reads what is left itself, as it does wherever a window does not
//! hold what it wants.
//!
//! The thread and the reader share checking each record's layout: a
//! window brought in while the reader is still busy with the one before
//! is checked by the thread before it is handed over; otherwise it is
//! handed over at once, and the reader checks its records as it gets to
//! them. Each record is checked once, by whichever claims it first
//! ([`Checks`]).

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};

use crate::mapped::Mapped;

/// The most a window holds, unless one record is longer. When windows
/// were copied, replaying a 240 MB volume of 80 KB records (as pmlogger
/// writes logging a few thousand values) with pmval was 7-10% faster with
/// windows of 1 MB than of 256 KB (fewer hand-overs between the threads).
pub(crate) const WINDOW: usize = 1 << 20;
/// How many windows may wait for the reader (besides the one the thread is
/// bringing in): one more was no faster, and each holds a window's pages.
const QUEUED: usize = 1;
/// How many windows handed over are watched, to let their pages go.
const WATCHED: usize = 16;

/// What checking a record's body (the bytes after its length word, up to
/// its trailing one) found: where each value list is and its PMID, or
/// `None` where the reader must look at the record more closely.
pub(crate) type Layout = Option<Vec<(u32, u32)>>;

/// The check the thread runs on each record body.
pub(crate) type Check = Box<dyn Fn(&[u8]) -> Layout + Send>;

/// The records of one window and what checking each found, filled in by
/// the thread or the reader, whichever claims the record first.
#[derive(Debug)]
pub(crate) struct Checks {
    /// Where each record's length word is in the window, in order, and
    /// the window's length after them.
    at: Vec<u32>,
    claimed: Vec<AtomicBool>,
    found: Vec<OnceLock<Layout>>,
}

impl Checks {
    fn new(at: Vec<u32>) -> Checks {
        let n = at.len().saturating_sub(1);
        Checks {
            at,
            claimed: (0..n).map(|_| AtomicBool::new(false)).collect(),
            found: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Check the records of `window` from the last on back, until one
    /// already claimed.
    fn check_back(&self, window: &[u8], check: &dyn Fn(&[u8]) -> Layout) {
        for i in (0..self.found.len()).rev() {
            if self.claimed[i].swap(true, Ordering::AcqRel) {
                return;
            }
            let _ = self.found[i].set(check(&window[self.at[i] as usize + 4..self.at[i + 1] as usize - 4]));
        }
    }

    /// The layout of the record whose body is `body`, at `start` in the
    /// window: as the thread found it, or checked here with `check` (also
    /// while the thread is at it, which gives the same). `None` where no
    /// record of the window has that body.
    pub fn layout(&self, start: usize, body: &[u8], check: impl Fn(&[u8]) -> Layout) -> Option<Layout> {
        let i = self.at.binary_search(&u32::try_from(start.checked_sub(4)?).ok()?).ok()?;
        let end = *self.at.get(i + 1)? as usize;
        if end - 4 != start + body.len() {
            return None;
        }
        if let Some(found) = self.found[i].get() {
            return Some(found.clone());
        }
        if self.claimed[i].swap(true, Ordering::AcqRel) {
            return Some(check(body));
        }
        Some(self.found[i].get_or_init(|| check(body)).clone())
    }
}

/// Where each record of `buf` (whole records from its start) begins, and
/// where the last one ends.
pub(crate) fn record_starts(buf: &[u8]) -> Vec<u32> {
    let mut at = vec![0u32];
    let mut off = 0;
    while let Some(w) = buf.get(off..off + 4) {
        let len = u32::from_be_bytes([w[0], w[1], w[2], w[3]]) as usize;
        if len < 16 || off + len > buf.len() {
            break;
        }
        off += len;
        at.push(off as u32);
    }
    at
}

/// A window, where it starts, and its records' checks.
type Window = (u64, Arc<Mapped>, Arc<Checks>);

/// Windows of whole records from some record on, mapped and their pages
/// brought in by a thread of their own.
#[derive(Debug)]
pub(crate) struct Ahead {
    /// (In a mutex only so that contexts can be shared between threads:
    /// reading takes `&mut self`, which needs no locking.)
    windows: Mutex<Receiver<Window>>,
    /// Windows no record refers to any more go back to have their pages
    /// let go.
    spent: Sender<Arc<Mapped>>,
    /// Where the window after those held starts (`u64::MAX` once the
    /// thread has stopped).
    next: u64,
    /// Windows arrived and not yet passed, in order.
    held: VecDeque<Window>,
    /// Windows passed, until no record refers to them.
    passed: Vec<Arc<Mapped>>,
}

/// How many bytes of `buf` whole records fill, from its start, and the
/// length of the record after them (`None` where the length words stop
/// making sense, or the buffer ends inside the next length word).
fn whole_records(buf: &[u8]) -> (usize, Option<usize>) {
    let mut at = 0;
    while let Some(w) = buf.get(at..at + 4) {
        let len = u32::from_be_bytes([w[0], w[1], w[2], w[3]]) as usize;
        // a record has its length twice and a timestamp at least
        if len < 16 || len % 4 != 0 {
            return (at, None);
        }
        if at + len > buf.len() {
            return (at, Some(len));
        }
        at += len;
    }
    (at, None)
}

impl Ahead {
    /// Start reading `file` (`size` bytes long) from the record at `from`,
    /// checking each record with `check`. An error where the file cannot
    /// be mapped or no thread started (the caller reads it itself).
    pub fn start(file: &File, from: u64, size: u64, check: Check) -> io::Result<Ahead> {
        let len = usize::try_from(size.saturating_sub(from)).map_err(|_| io::ErrorKind::InvalidInput)?;
        let whole = crate::mapped::map(file, from, len).ok_or(io::ErrorKind::Unsupported)?;
        let (tx, windows) = sync_channel(QUEUED);
        let (spent, back) = channel::<Arc<Mapped>>();
        crate::thread::spawn("pcp-read-ahead", move || {
            let all = whole.as_slice();
            let mut at = 0;
            while at < all.len() {
                // the pages of windows passed go (they would count in
                // the process's memory until it ends)
                while let Ok(w) = back.try_recv() {
                    w.release_pages();
                }
                let want = (all.len() - at).min(WINDOW);
                let Some(span) = whole.part(at, want) else { return };
                span.populate();
                let (mut len, next) = whole_records(span.as_slice());
                if len == 0 {
                    // one record longer than a window
                    let Some(n) = next.filter(|&n| at + n <= all.len()) else { return };
                    len = n;
                }
                let Some(window) = whole.part(at, len) else { return };
                if len > want {
                    window.populate();
                }
                let checks = Arc::new(Checks::new(record_starts(window.as_slice())));
                let window = Arc::new(window);
                // while the reader is busy with the windows before, check
                // this one's records before handing it over; otherwise
                // hand it over at once and read on (the reader checks
                // them). The reader having gone away, stop.
                match tx.try_send((from + at as u64, Arc::clone(&window), Arc::clone(&checks))) {
                    Ok(()) => {}
                    Err(TrySendError::Full(w)) => {
                        checks.check_back(window.as_slice(), &check);
                        if tx.send(w).is_err() {
                            return;
                        }
                    }
                    Err(TrySendError::Disconnected(_)) => return,
                }
                at += len;
            }
        })?;
        Ok(Ahead { windows: Mutex::new(windows), spent, next: from, held: VecDeque::new(), passed: Vec::new() })
    }

    /// Where the windows still to come (held or on their way) start.
    pub fn from(&self) -> u64 {
        self.held.front().map_or(self.next, |w| w.0)
    }

    /// A window holding the `len` bytes at `off` whole, its offset, and
    /// its records' checks. `None` where `off` lies before what is read
    /// ahead, no window holds them whole, or the thread has stopped.
    pub fn get(&mut self, off: u64, len: usize) -> Option<Window> {
        if off < self.from() {
            return None;
        }
        loop {
            match self.held.front() {
                Some((at, w, _)) if at + w.as_slice().len() as u64 <= off => {
                    if let Some((_, w, _)) = self.held.pop_front() {
                        self.pass(w);
                    }
                }
                Some(_) => break,
                None => {
                    let windows = self.windows.get_mut().ok()?;
                    let window = windows.recv().ok()?;
                    self.next = window.0 + window.1.as_slice().len() as u64;
                    self.held.push_back(window);
                }
            }
        }
        let (at, w, c) = self.held.front()?;
        (*at <= off && off + len as u64 <= at + w.as_slice().len() as u64).then(|| (*at, Arc::clone(w), Arc::clone(c)))
    }

    /// A window passed: give it back to have its pages let go once no
    /// record refers to it.
    fn pass(&mut self, window: Arc<Mapped>) {
        self.passed.push(window);
        let mut i = 0;
        while i < self.passed.len() {
            if Arc::strong_count(&self.passed[i]) == 1 {
                let _ = self.spent.send(self.passed.swap_remove(i));
            } else {
                i += 1;
            }
        }
        if self.passed.len() > WATCHED {
            self.passed.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Records of the given lengths (length word at each end), after a
    /// 100-byte preamble.
    fn records(lens: &[usize]) -> Vec<u8> {
        let mut v = vec![7u8; 100];
        for (i, &n) in lens.iter().enumerate() {
            let w = (n as u32).to_be_bytes();
            v.extend_from_slice(&w);
            v.extend((0..n - 8).map(|j| (i + j) as u8));
            v.extend_from_slice(&w);
        }
        v
    }

    /// A stand-in for the layout check: the body's length and byte sum.
    fn sum(body: &[u8]) -> Layout {
        Some(vec![(body.len() as u32, body.iter().map(|&b| b as u32).sum())])
    }

    fn file_of(data: &[u8]) -> File {
        let path = std::env::temp_dir().join(format!("pcp-rs-ahead-{}-{}", std::process::id(), data.len()));
        File::create(&path).unwrap().write_all(data).unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }

    #[test]
    fn windows_hold_whole_records() {
        let lens = [40, WINDOW - 40, 16, WINDOW * 2 + 4, 1000, 64];
        let data = records(&lens);
        let mut a = Ahead::start(&file_of(&data), 100, data.len() as u64, Box::new(sum)).unwrap();
        assert!(a.get(99, 1).is_none());
        let mut off = 100u64;
        for n in lens {
            // the record's length word, its body, and its trailing length
            for (o, l) in [(off, 4), (off + 4, n - 8), (off + n as u64 - 4, 4)] {
                let (at, w, checks) = a.get(o, l).unwrap();
                let w = w.as_slice();
                let s = (o - at) as usize;
                assert_eq!(&w[s..s + l], &data[o as usize..o as usize + l]);
                // the body's check, whoever made it; nothing for the
                // length words
                let found = checks.layout(s, &w[s..s + l], sum);
                if l == n - 8 {
                    assert_eq!(found.unwrap(), sum(&data[o as usize..o as usize + l]));
                } else {
                    assert!(found.is_none());
                }
            }
            off += n as u64;
        }
        assert!(a.get(off, 1).is_none());
    }

    #[test]
    fn records_cut_by_a_window_end_come_whole_in_the_next() {
        // each window's end cuts a record, which the next window starts
        // with
        let lens = [WINDOW / 2, WINDOW / 2 + 100, 64, WINDOW - 200, 300, 1000, 40];
        let data = records(&lens);
        let mut a = Ahead::start(&file_of(&data), 100, data.len() as u64, Box::new(sum)).unwrap();
        let mut off = 100u64;
        let mut windows = Vec::new();
        for n in lens {
            let (at, w, checks) = a.get(off, n).unwrap();
            let w = w.as_slice();
            let s = (off - at) as usize;
            assert_eq!(&w[s..s + n], &data[off as usize..off as usize + n]);
            assert_eq!(checks.layout(s + 4, &w[s + 4..s + n - 4], sum).unwrap(), sum(&w[s + 4..s + n - 4]));
            if windows.last() != Some(&at) {
                windows.push(at);
            }
            off += n as u64;
        }
        assert_eq!(off, data.len() as u64);
        // windows of the records that fit: 1; 2 and 3; 4; 5 to 7
        let mut at = vec![100u64];
        for group in [&lens[..1], &lens[1..3], &lens[3..4]] {
            at.push(at[at.len() - 1] + group.iter().sum::<usize>() as u64);
        }
        assert_eq!(windows, at);
    }

    #[test]
    fn each_record_is_checked_once_by_thread_or_reader() {
        let data = records(&[40, 64, 16, 100]);
        let window = &data[100..];
        let calls = std::cell::Cell::new(0);
        let counted = |b: &[u8]| {
            calls.set(calls.get() + 1);
            sum(b)
        };
        let checks = Checks::new(record_starts(window));
        assert_eq!(checks.at, [0, 40, 104, 120, 220]);
        // the reader takes the first record, the thread the others from
        // the last back, stopping there
        assert_eq!(checks.layout(4, &window[4..36], counted).unwrap(), sum(&window[4..36]));
        checks.check_back(window, &counted);
        assert_eq!(calls.get(), 4);
        for (i, (start, end)) in [(4, 36), (44, 100), (108, 116), (124, 216)].into_iter().enumerate() {
            assert_eq!(checks.layout(start, &window[start..end], counted), Some(sum(&window[start..end])), "{i}");
        }
        assert_eq!(calls.get(), 4);
        // not a record's body: not known
        assert_eq!(checks.layout(4, &window[4..32], counted), None);
        assert_eq!(checks.layout(8, &window[8..36], counted), None);
        assert_eq!(checks.layout(0, &window[0..4], counted), None);
        assert_eq!(calls.get(), 4);
    }

    #[test]
    fn nonsense_lengths_stop_the_thread() {
        let mut data = records(&[40, 40, 40]);
        // the second record claims to run past the end of the file
        data[140..144].copy_from_slice(&1_000_000u32.to_be_bytes());
        let mut a = Ahead::start(&file_of(&data), 100, data.len() as u64, Box::new(sum)).unwrap();
        assert!(a.get(100, 40).is_some());
        assert!(a.get(140, 4).is_none());
        assert_eq!(whole_records(&[0, 0, 0, 3]), (0, None));
        assert_eq!(whole_records(&[0, 0, 0, 16, 1]), (0, Some(16)));
    }
}
