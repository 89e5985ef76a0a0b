//! `-t`: the temporal index dump.

use super::format::timestamp;
use super::Dumper;
use pcp_archive::files::Compression;
use pcp_archive::raw::Version;
use std::io::Write;

impl Dumper<'_> {
    /// `-t`: the temporal index, with pmdumplog's integrity checks
    /// against the files' sizes.
    /// pmdumplog's `__pmStat` of each file is traced to `err` (`-Dlog`).
    pub(super) fn dump_index(
        &mut self,
        out: &mut dyn Write,
        err: &mut dyn Write,
        trace: &pcp_core::debug::Trace,
    ) -> std::io::Result<()> {
        let archive = &self.src.archive;
        let v = self.version;
        writeln!(out, "\nTemporal Index")?;
        if self.xflag > 0 {
            out.write_all(b"\t\t")?;
        }
        if self.xflag >= 2 {
            out.write_all(b"\t\t")?;
        }
        if v == Version::V3 {
            out.write_all(b"\t")?;
        }
        writeln!(out, "\t\tLog Vol    end(meta)     end(log)")?;
        let entries = archive.index().unwrap_or_default();
        // the file as found, compressed or not; libpcp's __pmStat gives
        // the size of a plain one only (a compressed file's is "invalid",
        // -1, and no offset is past it)
        let tracing = trace.on(pcp_core::debug::DebugFlag::Log);
        let lcp_name = pcp_archive::opentrace::lcp_name(archive.base());
        let mut size = |suffix: &str| -> Option<Option<u64>> {
            if tracing {
                let path = format!("{lcp_name}{suffix}");
                let note = pcp_archive::opentrace::decompress_note(&path);
                let _ = writeln!(err, "__pmStat(\"{path}\"): {note}");
            }
            let path = pcp_archive::files::find_file(archive.base(), suffix)?;
            let plain = pcp_archive::files::compression_of(&path.to_string_lossy()) == Compression::None;
            let meta = std::fs::metadata(&path).ok()?;
            Some(plain.then_some(meta.len()))
        };
        let mut meta_size = None;
        let mut log_size = None;
        let mut last: Option<&pcp_archive::raw::IndexEntry> = None;
        for (i, e) in entries.iter().enumerate() {
            let mut buf = Vec::new();
            self.stamp(&mut buf, e.when);
            let _ = writeln!(buf, "\t  {:5}  {:11}  {:11}", e.vol, e.meta_offset as i64, e.data_offset as i64);
            out.write_all(&buf)?;
            if i == 0 {
                meta_size = size(".meta").flatten();
            }
            if last.is_none_or(|l| l.vol != e.vol) {
                let found = size(&format!(".{}", e.vol));
                if found.is_none() {
                    writeln!(out, "\t\tWarning: file missing for log volume {}", e.vol)?;
                }
                log_size = found.flatten();
            }
            if e.when.sec < 0 {
                writeln!(out, "\t\tError: illegal timestamp value ({} sec, {} nsec)", e.when.sec, e.when.nsec)?;
            }
            if let Some(m) = meta_size.filter(|&m| e.meta_offset as i64 > m as i64) {
                writeln!(out, "\t\tError: offset to meta file past end of file ({m})")?;
            }
            if let Some(s) = log_size.filter(|&s| e.data_offset as i64 > s as i64) {
                writeln!(out, "\t\tError: offset to log file past end of file ({s})")?;
            }
            if let Some(l) = last {
                if e.when < l.when {
                    writeln!(
                        out,
                        "\t\tError: timestamp went backwards in time {} -> {}",
                        timestamp(&self.zone, l.when, v),
                        timestamp(&self.zone, e.when, v)
                    )?;
                }
                if e.vol < l.vol {
                    writeln!(out, "\t\tError: volume number decreased")?;
                }
                if e.vol == l.vol && (e.meta_offset as i64) < l.meta_offset as i64 {
                    writeln!(out, "\t\tError: offset to meta file decreased")?;
                }
                if e.vol == l.vol && (e.data_offset as i64) < l.data_offset as i64 {
                    writeln!(out, "\t\tError: offset to log file decreased")?;
                }
            }
            last = Some(e);
        }
        Ok(())
    }
}
