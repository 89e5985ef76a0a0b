//! A thread of the caller's lent to a context, for the work the library
//! would otherwise start a thread of its own for (a pcp-rs addition).
//!
//! A new thread needs a CPU, and is slow to get one: queued on its
//! parent's CPU until moved ([`pcp_archive::thread::spawn`] moves it, and
//! it then runs after about 0.2 ms here), and on a virtual machine a CPU
//! that has been idle for a while takes a while to wake (BENCHMARKS.md).
//! A thread that has just finished other work for the caller (pmval's,
//! which opened the archive) is still running on its CPU: handed to the
//! context as a [`Worker`], it waits a little without sleeping
//! ([`Serve::serve`]), and takes the fetching when it comes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Work for a [`Worker`].
pub type Job = Box<dyn FnOnce() + Send>;

/// How long a worker with nothing to do waits without sleeping.
const AWAKE: Duration = Duration::from_millis(2);

/// The context's side of a lent thread: where to hand it a job, and
/// whether it is free to take one.
#[derive(Debug)]
pub struct Worker {
    jobs: SyncSender<Job>,
    idle: Arc<AtomicBool>,
}

/// The lent thread's side: what it serves.
#[derive(Debug)]
pub struct Serve {
    jobs: Receiver<Job>,
    idle: Arc<AtomicBool>,
}

impl Worker {
    /// A worker, and what the thread lent serves.
    pub fn new() -> (Worker, Serve) {
        let (jobs, queue) = sync_channel(1);
        let idle = Arc::new(AtomicBool::new(false));
        (Worker { jobs, idle: Arc::clone(&idle) }, Serve { jobs: queue, idle })
    }

    /// Hand `job` to the thread, if it is waiting for one: otherwise (busy
    /// or gone) the job comes back.
    pub fn run(&self, job: Job) -> Result<(), Job> {
        if self.idle.compare_exchange(true, false, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return Err(job);
        }
        self.jobs.try_send(job).map_err(|e| match e {
            std::sync::mpsc::TrySendError::Full(j) | std::sync::mpsc::TrySendError::Disconnected(j) => j,
        })
    }
}

impl Serve {
    /// Run the jobs handed over, one at a time, until the [`Worker`] is
    /// dropped: after each (and at first), wait [`AWAKE`] without
    /// sleeping, then asleep.
    pub fn serve(self) {
        loop {
            self.idle.store(true, Ordering::Release);
            let Some(job) = recv_awake(&self.jobs, AWAKE) else { return };
            job();
        }
    }
}

/// What `rx` brings next (`None` once its senders are gone), waited for
/// awake, asking again and again and yielding the CPU in between, for up
/// to `awake`, then asleep: a thread asleep on a virtual machine's idle
/// CPU takes a while to wake, the CPU first.
pub fn recv_awake<T>(rx: &Receiver<T>, awake: Duration) -> Option<T> {
    let start = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(t) => return Some(t),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if start.elapsed() < awake => std::thread::yield_now(),
            Err(TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs run on the lent thread while it waits, awake or asleep; one
    /// handed over while it is busy comes back; once the worker is
    /// dropped the thread ends.
    #[test]
    fn jobs_run_on_the_lent_thread_only_while_it_waits() {
        let (worker, serve) = Worker::new();
        // not waiting yet
        assert!(worker.run(Box::new(|| {})).is_err());
        let thread = std::thread::spawn(move || serve.serve());
        let (done, ran_on) = sync_channel(1);
        for asleep in [false, true] {
            while !worker.idle.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
            if asleep {
                std::thread::sleep(AWAKE * 2);
            }
            let (go, wait) = sync_channel::<()>(0);
            let done = done.clone();
            let job = move || {
                let _ = wait.recv();
                let _ = done.send(std::thread::current().id());
            };
            assert!(worker.run(Box::new(job)).is_ok());
            // busy: another job comes back
            assert!(worker.run(Box::new(|| {})).is_err());
            go.send(()).unwrap();
            assert_ne!(ran_on.recv().unwrap(), std::thread::current().id());
        }
        drop(worker);
        thread.join().unwrap();
    }
}
