//! Interpolated fetches from an archive made ahead, on a thread of their
//! own (a pcp-rs addition; libpcp has nothing like it).
//!
//! A tool replaying an archive at even steps (pmval) asks for the same
//! metrics fetch after fetch, and between fetches it evaluates derived
//! metrics and prints. Interpolating is half of its work, and none of it
//! depends on what the tool does in between: so a thread can make the
//! next fetches while the tool reports the last ones.
//!
//! The thread works on a fork of the replay ([`Replay::fork`]). It hands
//! its results over in batches (of 1, 2, 4 … up to [`MOST`] fetches, so
//! that the first comes at once and later ones cost few hand-overs), some
//! with a copy (a clone) of its replay as it was before the batch (one
//! every [`COPY_EVERY`] fetches), and gets back the results the tool is
//! done with, to fill again. As long as
//! the tool asks for the same metrics through the same profile, each
//! fetch is the next result the thread made. Anything
//! else (other metrics, another profile, any other use of the replay)
//! calls the thread back first ([`FetchAhead::recall`]): its replay is the
//! context's again if the tool took every fetch it made; otherwise the
//! last copy from before a batch the tool has come to is brought up to
//! where the tool got, by making the fetches the tool took since over
//! again (fewer than [`COPY_EVERY`] and a batch). A replay gives the same results for the same
//! fetches, so either way the context is exactly where fetching one by one
//! would have left it.

use crate::profile::Profile;
use pcp_archive::replay::Replay;
use pcp_core::{FetchResult, PmError, PmId, Timestamp};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::Mutex;

/// The most fetches handed over at once: whichever side waits for the
/// other is woken once a batch (pmval over 20180102 at -t 1, 11,652
/// fetches, was woken 90-140 times with batches of 64 at most, 25-30
/// with 512). Each fetch made ahead holds a result of its own until the
/// tool gives it back, and up to [`WAITING`] + 2 batches are out at once:
/// with 512 the same run grew the thread's heap by 2.6 MB, mostly 4 KB at
/// a time (247 system calls, a page fault each page); with 128 by 0.4 MB
/// (70 calls), the run's page faults from about 1,350 to 850 and its peak
/// memory from 8.2-8.8 MB to 7.0-7.2 MB, in the same time.
pub(crate) const MOST: usize = 128;
/// How many fetches the thread makes between copies of its replay that
/// it hands over with a batch (the tool keeps the last, to be brought up
/// to where it got if it calls the thread back: by making again fewer than
/// this many fetches and a batch). A copy with every batch cost a clone
/// on the thread and dropping the one before on the tool's side: over
/// `20180102` at `-t 10` (15 batches) the dropping was 6% of the samples
/// of pmval's run (`perf`), and copying less often took 0.4-1.1 ms off its
/// first quartile and median time (BENCHMARKS.md).
const COPY_EVERY: u64 = 8 * MOST as u64;
/// How many batches may wait for the tool.
const WAITING: usize = 2;

/// One fetch made ahead: its outcome, its result and the time after it.
#[derive(Debug)]
struct Made {
    outcome: Result<(), PmError>,
    result: FetchResult,
    position: Timestamp,
}

/// What the thread gives back when called back: its replay, and how many
/// fetches it made.
type Finish = (Replay, u64);

/// Fetches handed over at once, with the replay as it was before them
/// every [`COPY_EVERY`] fetches (`None` otherwise: the replay kept when
/// the thread started, or the last copy, stays the tool's).
#[derive(Debug)]
struct Batch {
    before: Option<Replay>,
    made: Vec<Made>,
}

/// Fetches being made ahead.
#[derive(Debug)]
pub(crate) struct FetchAhead {
    pmids: Vec<PmId>,
    profile: Profile,
    /// The profile's change count when the thread started.
    changes: u64,
    /// The replay as it was before the last batch that came with a copy
    /// of it (as when the thread started, before the first), and how many
    /// fetches the tool had taken then.
    base: Replay,
    base_taken: u64,
    /// How many fetches the tool has taken.
    taken: u64,
    ready: std::vec::IntoIter<Made>,
    /// (behind a lock only for a context to be `Sync`: taking from it
    /// needs the context mutably)
    made: Option<Mutex<Receiver<Batch>>>,
    spent: Sender<FetchResult>,
    /// Where the thread hands its replay back when it stops (behind a
    /// lock as `made` is).
    done: Option<Mutex<Receiver<Finish>>>,
}

impl FetchAhead {
    /// Start making fetches of `pmids` through `profile` from where
    /// `replay` is, on a thread of their own; the replay is kept here while
    /// they are made (`None`, and the replay left where it is, if no thread
    /// could be started).
    pub(crate) fn start(replay: &mut Option<Replay>, pmids: &[PmId], profile: &Profile) -> Option<FetchAhead> {
        let mut fork = replay.as_mut()?.fork();
        let (made_tx, made) = sync_channel::<Batch>(WAITING);
        let (spent, spent_rx) = channel::<FetchResult>();
        let (list, wanted) = (pmids.to_vec(), profile.clone());
        let work = move || {
            let wanted = |indom, inst| wanted.wanted(indom, inst);
            let (mut n, mut made, mut copied) = (1, 0u64, 0u64);
            loop {
                let before = (made >= copied + COPY_EVERY).then(|| {
                    copied = made;
                    fork.clone()
                });
                let mut batch = Vec::with_capacity(n);
                let mut last = false;
                while batch.len() < n && !last {
                    let mut result = spent_rx.try_recv().unwrap_or_default();
                    let outcome = fork.fetch_into(&list, &wanted, &mut result);
                    made += 1;
                    // (after an error the tool most likely stops; if not,
                    // it fetches for itself)
                    last = outcome.is_err();
                    batch.push(Made { outcome, result, position: fork.position() });
                }
                if made_tx.send(Batch { before, made: batch }).is_err() || last {
                    return (fork, made);
                }
                n = (n * 2).min(MOST);
            }
        };
        let (finished, done) = sync_channel(1);
        std::thread::Builder::new()
            .name("pcp-fetch-ahead".into())
            .spawn(move || {
                let _ = finished.send(work());
            })
            .ok()?;
        Some(FetchAhead {
            pmids: pmids.to_vec(),
            profile: profile.clone(),
            changes: profile.changes(),
            base: replay.take()?,
            base_taken: 0,
            taken: 0,
            ready: Vec::new().into_iter(),
            made: Some(Mutex::new(made)),
            spent,
            done: Some(Mutex::new(done)),
        })
    }

    /// Is this the fetch being made ahead?
    pub(crate) fn serves(&self, pmids: &[PmId], profile: &Profile) -> bool {
        self.pmids == pmids && self.changes == profile.changes()
    }

    /// The next fetch, into `out` (whose old result goes back to the
    /// thread to fill again): its outcome and the time after it; `None`
    /// when the thread has stopped (after an error it handed over).
    pub(crate) fn next(&mut self, out: &mut FetchResult) -> Option<(Result<(), PmError>, Timestamp)> {
        let made = match self.ready.next() {
            Some(m) => m,
            None => {
                let batch = self.wait()?;
                if let Some(before) = batch.before {
                    (self.base, self.base_taken) = (before, self.taken);
                }
                self.ready = batch.made.into_iter();
                self.ready.next()?
            }
        };
        self.taken += 1;
        let old = std::mem::replace(out, made.result);
        // (a thread that has stopped has no use for it)
        let _ = self.spent.send(old);
        Some((made.outcome, made.position))
    }

    /// The next batch from the thread (`None` once it has stopped).
    fn wait(&mut self) -> Option<Batch> {
        self.made.as_mut()?.get_mut().ok()?.recv().ok()
    }

    /// Call the thread back: the replay, where fetching one by one would
    /// have left it.
    pub(crate) fn recall(mut self) -> Replay {
        // (a thread waiting to hand over a batch stops)
        self.made = None;
        let finish = self.done.take().and_then(|d| d.into_inner().ok()).map(|d| d.recv());
        match finish {
            Some(Ok((replay, made))) if made == self.taken => replay,
            _ => catch_up(self.base, &self.pmids, &self.profile, self.taken - self.base_taken),
        }
    }

    /// A copy of the replay where the fetches taken have left it (for
    /// `pmDupContext` while fetches are being made ahead).
    pub(crate) fn current(&self) -> Replay {
        catch_up(self.base.clone(), &self.pmids, &self.profile, self.taken - self.base_taken)
    }
}

/// `replay` (the one kept from before the batch the tool is taking from,
/// or a copy of it) after the `n` fetches of `pmids` the tool has taken
/// since.
fn catch_up(mut replay: Replay, pmids: &[PmId], profile: &Profile, n: u64) -> Replay {
    let wanted = |indom, inst| profile.wanted(indom, inst);
    let mut out = FetchResult::default();
    for _ in 0..n {
        let _ = replay.fetch_into(pmids, &wanted, &mut out);
    }
    replay
}
