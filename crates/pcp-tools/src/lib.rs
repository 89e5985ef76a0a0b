//! PCP's command-line tools as library functions.
//!
//! Each tool is `run(args, out, err) -> exit status`, writing its standard
//! output and standard error to the given streams, so tests can compare
//! both byte for byte with the C tools. The binaries are thin wrappers
//! ([`main_with`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cscanf;
mod evrec;
pub mod local;
pub mod options;
pub mod pmcpp;
pub mod pmdumplog;
pub mod pmerr;
pub mod pminfo;
pub mod pmprobe;
pub mod pmstore;
pub mod pmval;

use std::ffi::OsString;
use std::io::{self, Write};

/// A tool's entry point: arguments (including `argv[0]`), standard output,
/// standard error; returns the exit status.
pub type ToolFn = fn(&[OsString], &mut dyn Write, &mut dyn Write) -> i32;

/// Run a tool as a process: real arguments and streams, then exit with its
/// status. Standard output is buffered as C's stdio buffers it: a line at a
/// time to a terminal (so that a live tool's samples show as they come),
/// in blocks of the file's block size otherwise. A reader that goes away early (`| head`) ends the
/// tool at its next write, with status 141, as `SIGPIPE` ends the C tools.
pub fn main_with(tool: ToolFn) -> ! {
    use std::io::IsTerminal;
    let args: Vec<OsString> = std::env::args_os().collect();
    let stdout = io::stdout();
    // (the standard library's lock writes out each line: a terminal gets
    // it as it is; anything else gets it through a block buffer)
    let lines = stdout.is_terminal();
    let lock = stdout.lock();
    let mut out: EndOnClosedPipe<Box<dyn Write>> =
        EndOnClosedPipe(if lines { Box::new(lock) } else { Box::new(StdioBlocks::new(lock, stdout_block_size())) });
    let mut err = EndOnClosedPipe(io::stderr());
    let status = tool(&args, &mut out, &mut err);
    let _ = out.flush();
    std::process::exit(status)
}

/// The block size C's stdio buffers standard output in when it is not a
/// terminal: the file's preferred block size (`st_blksize`), 4096 where
/// that cannot be found.
fn stdout_block_size() -> usize {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self/fd/1").map_or(4096, |m| m.blksize() as usize).clamp(1, 1 << 20)
}

/// Output passed on in whole blocks as glibc's stdio passes on a fully
/// buffered stream: a block goes out when the write after it finds it
/// full (or at a flush), so that what goes to standard error meanwhile
/// lands between the same bytes as with the C tools when both streams go
/// to one file (`2>&1`).
struct StdioBlocks<W: Write> {
    inner: W,
    buf: Vec<u8>,
    size: usize,
}

impl<W: Write> StdioBlocks<W> {
    fn new(inner: W, size: usize) -> StdioBlocks<W> {
        StdioBlocks { inner, buf: Vec::with_capacity(size), size }
    }
}

impl<W: Write> Write for StdioBlocks<W> {
    fn write(&mut self, mut data: &[u8]) -> io::Result<usize> {
        let len = data.len();
        while !data.is_empty() {
            if self.buf.len() == self.size {
                // (whole: Rust's standard output would hold back what
                // follows the block's last newline)
                self.inner.write_all(&self.buf)?;
                self.inner.flush()?;
                self.buf.clear();
            }
            let n = (self.size - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        Ok(len)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        self.inner.flush()
    }
}

/// A tool's standard output made line-buffered, as C's `setlinebuf(stdout)`
/// makes it: each write up to its last newline goes out (the stream
/// beneath is flushed), what follows stays buffered. A message written to
/// standard error after a line then comes after that line, as it does
/// when the two go to one file.
pub(crate) struct LineBuffered<'a>(pub(crate) &'a mut dyn Write);

impl Write for LineBuffered<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match buf.iter().rposition(|&b| b == b'\n') {
            Some(end) => {
                self.0.write_all(&buf[..=end])?;
                self.0.flush()?;
                self.0.write_all(&buf[end + 1..])?;
            }
            None => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// The status a shell shows for a process that `SIGPIPE` killed
/// (128 + 13).
const SIGPIPE_STATUS: i32 = 141;

/// A writer that ends the process when the pipe it writes to has lost its
/// reader, where a C tool is killed by `SIGPIPE` at that write (Rust's
/// runtime ignores the signal): at once, with the status a shell shows
/// for that. (A parent that waits for the process sees it exit with 141,
/// not killed by the signal.)
struct EndOnClosedPipe<W: Write>(W);

/// `r`, unless it is a closed pipe's error: then the process ends.
fn unless_closed<T>(r: io::Result<T>) -> io::Result<T> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(SIGPIPE_STATUS),
        other => other,
    }
}

impl<W: Write> Write for EndOnClosedPipe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        unless_closed(self.0.write(buf))
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        unless_closed(self.0.write_all(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        unless_closed(self.0.flush())
    }
}

#[cfg(test)]
mod stdio_tests {
    use super::StdioBlocks;
    use std::io::Write;

    /// Records each write that reaches it, as the file beneath sees it.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);
    impl Write for Writes {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.push(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn blocks_go_out_whole_when_the_next_write_finds_them_full() {
        let mut out = StdioBlocks::new(Writes::default(), 4);
        out.write_all(b"abc").unwrap();
        out.write_all(b"d").unwrap();
        assert!(out.inner.0.is_empty(), "a full block waits for the next write");
        out.write_all(b"efghijk").unwrap();
        assert_eq!(out.inner.0, [b"abcd".to_vec(), b"efgh".to_vec()]);
        out.flush().unwrap();
        assert_eq!(out.inner.0.last().unwrap(), b"ijk");
    }
}
