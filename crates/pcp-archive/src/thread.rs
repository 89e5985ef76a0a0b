//! Starting a thread that runs at once beside the thread starting it.
//!
//! The tools start threads to work alongside their own: one opens an
//! archive while the tool loads its derived metrics, others fetch ahead,
//! read plain volumes ahead or decompress volumes. That only pays if the
//! new thread runs while its parent goes on working. On some Linux hosts it
//! does not: on this project's 2-vCPU machines (Firecracker, kernel 6.18)
//! a new thread is queued on its parent's CPU and waits there, with the
//! other CPU idle, until the parent's time slice ends or a tick has the
//! idle CPU take it over: 2.7 ms by median from `pthread_create` while the
//! parent keeps busy, against 0.1 ms when the new thread may only run on
//! the other CPU (BENCHMARKS.md, "Threads that start late").
//!
//! [`spawn`] starts a thread, and, if it has not started by then, has it
//! run on any CPU but its parent's; once running, the thread takes back
//! the CPUs its parent was allowed (its affinity mask as it was). The
//! other way round is as bad: a thread that starts before its parent can
//! move it (about half the time here) most often starts on its parent's
//! CPU, and the parent then waits for the CPU, with the other one idle
//! (pmval's thread waited 1.3-1.6 ms to go on after starting the thread
//! that opens the archive). Such a thread steps over to another CPU
//! itself as it starts. Where
//! the parent is allowed one CPU only, or where the new thread cannot be
//! told from others (it is found among `/proc/self/task`'s entries, as the
//! one entry that appeared while it was started), it is left where the
//! kernel put it, as `std::thread::Builder::spawn` leaves it.

use std::io;
use std::thread::JoinHandle;

/// Start `f` on a new thread named `name`, made to run on another CPU
/// than this thread's until it starts (see the module). As
/// `std::thread::Builder::new().name(name).spawn(f)` otherwise.
pub fn spawn<F, T>(name: &str, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let builder = std::thread::Builder::new().name(name.to_string());
    beside(f, |g| builder.spawn(g))
}

/// [`spawn`] in `scope` (`std::thread::Builder::spawn_scoped`): a thread
/// that may borrow what outlives the scope.
pub fn spawn_scoped<'scope, F, T>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    f: F,
) -> io::Result<std::thread::ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let builder = std::thread::Builder::new().name(name.to_string());
    beside(f, |g| builder.spawn_scoped(scope, g))
}

/// `f` started by `start` (a builder's spawn), moved elsewhere where it
/// can be.
fn beside<'a, F, T, H>(f: F, start: impl FnOnce(Box<dyn FnOnce() -> T + Send + 'a>) -> io::Result<H>) -> io::Result<H>
where
    F: FnOnce() -> T + Send + 'a,
    T: 'a,
{
    #[cfg(target_os = "linux")]
    if let Some(elsewhere) = linux::Elsewhere::new() {
        let first = elsewhere.start();
        let handle = start(Box::new(move || {
            first.run();
            f()
        }))?;
        elsewhere.move_new();
        return Ok(handle);
    }
    start(Box::new(f))
}

#[cfg(target_os = "linux")]
mod linux {
    use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet, Pid};
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Arc;

    /// The new thread's states, in the order they can come.
    const UNSTARTED: u8 = 0;
    /// It started before its parent moved it: it stays where it is.
    const STARTED: u8 = 1;
    /// Its parent is moving it (it waits for the move to be done).
    const MOVING: u8 = 2;
    /// Moved: it takes back its parent's CPUs as it starts.
    const MOVED: u8 = 3;

    /// What starting a thread elsewhere needs: the CPUs this thread may
    /// run on, and those less the one it is on.
    pub(super) struct Elsewhere {
        allowed: CpuSet,
        others: CpuSet,
        /// The CPU this thread is on.
        cpu: usize,
        /// The threads of this process before the new one.
        before: Vec<i32>,
        /// Where the new thread is (see the states above).
        state: Arc<AtomicU8>,
    }

    /// The new thread's part: its first step.
    pub(super) struct Start {
        state: Arc<AtomicU8>,
        allowed: CpuSet,
        others: CpuSet,
        /// The CPU its parent was on when it started the thread.
        parent_cpu: usize,
    }

    impl Start {
        /// If moved (or being moved), take back the parent's CPUs; if
        /// not, and on the parent's CPU, go to another first.
        pub(super) fn run(self) {
            let state = &self.state;
            if state.compare_exchange(UNSTARTED, STARTED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                // (a running thread whose mask leaves out its CPU is
                // moved at once; given the whole mask back, it stays)
                if sched_getcpu() == self.parent_cpu {
                    let _ = sched_setaffinity(None, &self.others);
                    let _ = sched_setaffinity(None, &self.allowed);
                }
                return;
            }
            // (the parent is in one system call: the wait is short)
            while state.load(Ordering::Acquire) == MOVING {
                std::thread::yield_now();
            }
            let _ = sched_setaffinity(None, &self.allowed);
        }
    }

    impl Elsewhere {
        /// `None` where there is no other CPU to go to, or no list of
        /// this process's threads to find the new one in.
        pub(super) fn new() -> Option<Elsewhere> {
            let allowed = sched_getaffinity(None).ok()?;
            let cpu = sched_getcpu();
            let mut others = allowed;
            others.unset(cpu);
            if others.count() == 0 {
                return None;
            }
            Some(Elsewhere { allowed, others, cpu, before: threads()?, state: Arc::new(AtomicU8::new(UNSTARTED)) })
        }

        /// What the new thread runs first.
        pub(super) fn start(&self) -> Start {
            Start { state: Arc::clone(&self.state), allowed: self.allowed, others: self.others, parent_cpu: self.cpu }
        }

        /// Once the new thread is made: move it elsewhere, unless it has
        /// started already.
        pub(super) fn move_new(self) {
            if let Some(tid) = self.new_thread() {
                if self.state.compare_exchange(UNSTARTED, MOVING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                    let _ = sched_setaffinity(Some(tid), &self.others);
                    self.state.store(MOVED, Ordering::Release);
                }
            }
        }

        /// The one thread of this process that was not there before, if
        /// there is exactly one (the new thread is among them: it is
        /// listed as soon as it is made; one made meanwhile by another
        /// thread of the process leaves two, and neither is moved).
        fn new_thread(&self) -> Option<Pid> {
            let mut new = threads()?.into_iter().filter(|t| !self.before.contains(t));
            match (new.next(), new.next()) {
                (Some(tid), None) => Pid::from_raw(tid),
                _ => None,
            }
        }
    }

    /// The thread ids of this process.
    fn threads() -> Option<Vec<i32>> {
        let dir = std::fs::read_dir("/proc/self/task").ok()?;
        dir.map(|e| e.ok().and_then(|e| e.file_name().to_str().and_then(|s| s.parse().ok()))).collect()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A thread that starts on its parent's CPU before the parent
        /// moves it goes to another CPU, and keeps its parent's CPUs.
        #[test]
        fn a_thread_started_first_on_its_parents_cpu_steps_aside() {
            std::thread::spawn(|| {
                let mut stepped = false;
                // (this thread plays both parts, the parent's first; the
                // scheduler may move it between the two, or back at once
                // after: a few tries)
                for _ in 0..20 {
                    let Some(elsewhere) = Elsewhere::new() else { return };
                    let on = elsewhere.cpu;
                    elsewhere.start().run();
                    stepped |= sched_getcpu() != on;
                    assert!(sched_getaffinity(None).unwrap() == elsewhere.allowed);
                }
                assert!(stepped);
            })
            .join()
            .unwrap();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread runs what it was given, named as asked, and its parent
    /// gets its answer.
    #[test]
    fn a_thread_started_beside_runs_its_work() {
        for k in 0..20 {
            let h = spawn("pcp-test", move || (std::thread::current().name().map(str::to_string), k * 2)).unwrap();
            assert_eq!(h.join().unwrap(), (Some("pcp-test".to_string()), k * 2));
        }
    }

    /// A scoped thread started beside borrows from its parent and runs its
    /// work.
    #[test]
    fn a_scoped_thread_started_beside_borrows() {
        let words = ["a".to_string(), "b".to_string()];
        let joined = std::thread::scope(|s| spawn_scoped(s, "pcp-test", || words.concat()).unwrap().join().unwrap());
        assert_eq!(joined, "ab");
    }

    /// Once running, the thread may run wherever its parent may: a move
    /// to another CPU does not outlast its start.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_started_beside_keeps_its_parents_cpus() {
        use rustix::thread::sched_getaffinity;
        let parent = sched_getaffinity(None).unwrap();
        for _ in 0..20 {
            // (the parent keeps busy, as the tools do, for the move to be
            // made before the thread starts, in most rounds)
            let h = spawn("pcp-test", || sched_getaffinity(None).unwrap()).unwrap();
            let until = std::time::Instant::now() + std::time::Duration::from_millis(1);
            while std::time::Instant::now() < until {
                std::hint::spin_loop();
            }
            assert!(h.join().unwrap() == parent);
        }
    }

    /// Threads started beside from many threads at once all run and keep
    /// their parents' CPUs (two started at the same moment are left where
    /// the kernel put them).
    #[cfg(target_os = "linux")]
    #[test]
    fn threads_started_beside_at_once_from_many_threads() {
        use rustix::thread::sched_getaffinity;
        let parent = sched_getaffinity(None).unwrap();
        let parents: Vec<_> = (0..8)
            .map(|_| {
                std::thread::spawn(|| {
                    (0..10)
                        .map(|k| spawn("pcp-test", move || (k, sched_getaffinity(None).unwrap())).unwrap())
                        .map(|h| h.join().unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for p in parents {
            let got = p.join().unwrap();
            assert_eq!(got.iter().map(|(k, _)| *k).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
            assert!(got.iter().all(|(_, set)| *set == parent));
        }
    }
}
