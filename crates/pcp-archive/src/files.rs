//! An archive's files on disk: naming, compressed volumes, and reading
//! framed records from a stream.
//!
//! An archive `base` has files `base.meta`, `base.index` and data volumes
//! `base.0`, `base.1`, ...; any of them may carry a compression suffix.
//! PCP 6.0.3 reads `.xz` and `.lzma` (xz), `.bz2` and `.bz` (bzip2), and
//! `.gz`, `.Z` and `.z` (through `gzip -dc`, which also reads the old
//! `compress` format); we decompress all of these ourselves, telling
//! gzip from `compress` data by its magic number as gzip does. (gzip also
//! reads the long-obsolete `pack` format; we do not.)

use crate::raw::{Label, LABEL_HEAD};
use pcp_core::PmError;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

/// The compression suffixes PCP knows, in the order it tries them.
pub const COMPRESSION_SUFFIXES: [&str; 7] = [".xz", ".lzma", ".bz2", ".bz", ".gz", ".Z", ".z"];

/// How a file is compressed, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// xz or the legacy lzma format.
    Xz,
    /// bzip2.
    Bzip2,
    /// gzip.
    Gzip,
}

/// The compression a file name's suffix says.
pub fn compression_of(name: &str) -> Compression {
    match COMPRESSION_SUFFIXES.iter().find(|s| name.ends_with(*s)) {
        Some(&".xz") | Some(&".lzma") => Compression::Xz,
        Some(&".bz2") | Some(&".bz") => Compression::Bzip2,
        Some(_) => Compression::Gzip,
        None => Compression::None,
    }
}

/// `__pmLogBaseName`: the archive's base name from the name of any of its
/// files (`x.meta`, `x.index`, `x.0`, each possibly compressed); other
/// names are returned unchanged.
///
/// ```
/// use pcp_archive::files::{base_name, compression_of, Compression};
///
/// assert_eq!(base_name("/var/log/pcp/pmlogger/vm/20180102.0.xz"), "/var/log/pcp/pmlogger/vm/20180102");
/// assert_eq!(base_name("20180102.meta"), "20180102");
/// assert_eq!(base_name("20180102"), "20180102");
/// assert_eq!(compression_of("20180102.0.xz"), Compression::Xz);
/// assert_eq!(compression_of("20180102.0"), Compression::None);
/// ```
pub fn base_name(name: &str) -> &str {
    let mut n = name;
    if let Some(s) = COMPRESSION_SUFFIXES.iter().find(|s| n.ends_with(*s)) {
        n = &n[..n.len() - s.len()];
    }
    if let Some(dot) = n.rfind('.') {
        let suffix = &n[dot + 1..];
        let known =
            suffix == "meta" || suffix == "index" || (!suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()));
        if known && dot > 0 {
            return &n[..dot];
        }
    }
    name
}

/// `__pmLogFindOpen`'s base name for the archive `name`: its directory
/// and last component as `dirname(3)` and `basename(3)` take them (so
/// trailing slashes go), the last component stripped to its archive base
/// name ([`base_name`]) only when `name` names a file that exists, plain
/// or with a compression suffix.
pub fn archive_base(name: &str) -> PathBuf {
    let trimmed = name.trim_end_matches('/');
    if trimmed.is_empty() {
        // "/" (or "//"): both its dirname and basename
        return PathBuf::from(if name.is_empty() { "." } else { "/" });
    }
    let (dir, last) = match trimmed.rfind('/') {
        Some(i) => {
            let dir = trimmed[..i].trim_end_matches('/');
            (Some(if dir.is_empty() { "/" } else { dir }), &trimmed[i + 1..])
        }
        None => (None, trimmed),
    };
    let exists =
        Path::new(name).exists() || COMPRESSION_SUFFIXES.iter().any(|c| Path::new(&format!("{name}{c}")).exists());
    let last = if exists { base_name(last) } else { last };
    match dir {
        Some(dir) => Path::new(dir).join(last),
        None => PathBuf::from(last),
    }
}

/// The file `base` + `suffix` (e.g. `.meta`, `.0`), plain or with a
/// compression suffix, trying them in PCP's order.
pub fn find_file(base: &Path, suffix: &str) -> Option<PathBuf> {
    let plain = PathBuf::from(format!("{}{suffix}", base.display()));
    if plain.is_file() {
        return Some(plain);
    }
    COMPRESSION_SUFFIXES.iter().map(|c| PathBuf::from(format!("{}{suffix}{c}", base.display()))).find(|p| p.is_file())
}

/// The data volume numbers present for `base`, in ascending order.
pub fn volumes(base: &Path) -> io::Result<Vec<u32>> {
    let dir = match base.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = base.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut vols: Vec<u32> = std::fs::read_dir(dir)?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let rest = name.strip_prefix(&stem)?.strip_prefix('.')?;
            let rest = COMPRESSION_SUFFIXES.iter().find_map(|s| rest.strip_suffix(s)).unwrap_or(rest);
            if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            rest.parse().ok()
        })
        .collect();
    vols.sort_unstable();
    vols.dedup();
    Ok(vols)
}

/// Open a file for reading, decompressing by its suffix.
pub fn open(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    Ok(match decoder(path)? {
        #[cfg(feature = "xz")]
        Decoder::Xz(d) => Box::new(d),
        Decoder::Other(d) | Decoder::Unchecked(d) => d,
    })
}

/// A file's contents as they decompress.
pub(crate) enum Decoder {
    /// `.xz` or `.lzma`, whose compressed bytes read so far are known.
    #[cfg(feature = "xz")]
    Xz(Box<liblzma::read::XzDecoder<BufReader<File>>>),
    /// `compress` data (`.Z`, or gzip-named), which carries no check.
    #[cfg_attr(not(feature = "lzw"), allow(dead_code))]
    Unchecked(Box<dyn Read + Send>),
    /// Anything else.
    Other(Box<dyn Read + Send>),
}

impl Decoder {
    /// How many compressed bytes the decompressor has taken (0 but for xz).
    pub(crate) fn total_in(&self) -> u64 {
        match self {
            #[cfg(feature = "xz")]
            Decoder::Xz(d) => d.total_in(),
            Decoder::Other(_) | Decoder::Unchecked(_) => 0,
        }
    }
}

impl Read for Decoder {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            #[cfg(feature = "xz")]
            Decoder::Xz(d) => d.read(buf),
            Decoder::Other(d) | Decoder::Unchecked(d) => d.read(buf),
        }
    }
}

/// [`open`], keeping what is known of an xz decompressor.
pub(crate) fn decoder(path: &Path) -> io::Result<Decoder> {
    #[cfg_attr(not(feature = "lzw"), allow(unused_mut))]
    let mut f = BufReader::with_capacity(1 << 16, File::open(path)?);
    Ok(match compression_of(&path.to_string_lossy()) {
        Compression::None => Decoder::Other(Box::new(f)),
        #[cfg(feature = "lzw")]
        Compression::Gzip if crate::lzw::is_compress(io::BufRead::fill_buf(&mut f)?) => {
            Decoder::Unchecked(Box::new(crate::lzw::LzwDecoder::new(f)))
        }
        #[cfg(feature = "xz")]
        Compression::Xz => {
            // accepts both the .xz container and the legacy .lzma format
            let stream = liblzma::stream::Stream::new_auto_decoder(u64::MAX, liblzma::stream::CONCATENATED)
                .map_err(io::Error::other)?;
            Decoder::Xz(Box::new(liblzma::read::XzDecoder::new_stream(f, stream)))
        }
        #[cfg(feature = "bzip2")]
        Compression::Bzip2 => Decoder::Other(Box::new(bzip2::read::MultiBzDecoder::new(f))),
        #[cfg(feature = "gzip")]
        Compression::Gzip => Decoder::Other(Box::new(flate2::read::MultiGzDecoder::new(f))),
        #[cfg(not(all(feature = "xz", feature = "bzip2", feature = "gzip")))]
        kind => Decoder::Other(Box::new(LeftOut(kind))),
    })
}

/// The contents of a file in a format this build leaves out (its feature
/// is off): reading them fails, as libpcp's decompressing program does
/// when it cannot decompress.
#[cfg(not(all(feature = "xz", feature = "bzip2", feature = "gzip")))]
struct LeftOut(Compression);

#[cfg(not(all(feature = "xz", feature = "bzip2", feature = "gzip")))]
impl Read for LeftOut {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        let what = format!("{:?} decompression left out of this build (a pcp-archive feature)", self.0);
        Err(io::Error::new(io::ErrorKind::Unsupported, what))
    }
}

/// The size of a file's contents: for a compressed file, the size once
/// decompressed (as libpcp's `__pmStat` reports it). For `.xz` files it
/// is read from the streams' indexes, as libpcp's xz reader does; other
/// compressed files are decompressed to count.
pub fn content_size(path: &Path) -> io::Result<u64> {
    let name = path.to_string_lossy();
    match compression_of(&name) {
        Compression::None => Ok(std::fs::metadata(path)?.len()),
        Compression::Xz if name.ends_with(".xz") => match xz_size(&mut File::open(path)?) {
            Some(n) => Ok(n),
            None => io::copy(&mut open(path)?, &mut io::sink()),
        },
        _ => io::copy(&mut open(path)?, &mut io::sink()),
    }
}

/// The uncompressed size of an `.xz` file from its index(es), walking
/// its streams from the end; `None` if anything does not look right.
fn xz_size(f: &mut File) -> Option<u64> {
    Some(xz_blocks(f)?.last().map_or(0, |&(_, end)| end))
}

/// The blocks of an `.xz` file, from its index(es), in order: where each
/// block's check ends in the file, and where its contents end in the
/// file's contents. `None` if anything does not look right.
pub(crate) fn xz_blocks(f: &File) -> Option<Vec<(u64, u64)>> {
    use std::os::unix::fs::FileExt;
    fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
        let mut v = 0u64;
        for i in 0..9 {
            let byte = *b.get(*at)?;
            *at += 1;
            v |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    let read_at = |at: u64, n: usize| -> Option<Vec<u8>> {
        let mut b = vec![0u8; n];
        f.read_exact_at(&mut b, at).ok()?;
        Some(b)
    };
    let mut end = f.metadata().ok()?.len();
    // each stream's blocks (unpadded and uncompressed sizes) and where the
    // stream starts, the last stream first
    let mut streams: Vec<(u64, Vec<(u64, u64)>)> = Vec::new();
    while end > 0 {
        // stream padding: zero bytes in fours
        let tail = read_at(end.checked_sub(4)?, 4)?;
        if tail == [0, 0, 0, 0] {
            end -= 4;
            continue;
        }
        let footer = read_at(end.checked_sub(12)?, 12)?;
        if &footer[10..12] != b"YZ" {
            return None;
        }
        let backward = (u64::from(u32::from_le_bytes([footer[4], footer[5], footer[6], footer[7]])) + 1) * 4;
        if backward > 1 << 30 {
            return None;
        }
        let index_at = end.checked_sub(12 + backward)?;
        let index = read_at(index_at, backward as usize)?;
        if index.first() != Some(&0) {
            return None;
        }
        let mut at = 1;
        let records = varint(&index, &mut at)?;
        let mut sizes = Vec::new();
        let mut blocks = 0u64;
        for _ in 0..records.min(index.len() as u64) {
            let unpadded = varint(&index, &mut at)?;
            sizes.push((unpadded, varint(&index, &mut at)?));
            blocks = blocks.checked_add(unpadded.checked_add(3)? & !3)?;
        }
        // header, blocks, index, footer
        end = index_at.checked_sub(blocks)?.checked_sub(12)?;
        let header = read_at(end, 6)?;
        if header != [0xfd, b'7', b'z', b'X', b'Z', 0] {
            return None;
        }
        streams.push((end, sizes));
    }
    let mut out = Vec::new();
    let mut contents = 0u64;
    for (start, sizes) in streams.into_iter().rev() {
        let mut at = start + 12;
        for (unpadded, size) in sizes {
            contents = contents.checked_add(size)?;
            out.push((at.checked_add(unpadded)?, contents));
            at = at.checked_add(unpadded.checked_add(3)? & !3)?;
        }
    }
    Some(out)
}

/// A new temporary file, already unlinked, open for reading and writing.
pub(crate) fn temp_file() -> io::Result<File> {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = std::env::temp_dir();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    for _ in 0..100 {
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("pcp-rs-{}-{nanos}-{seq}", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
            Ok(f) => {
                std::fs::remove_file(&path)?;
                return Ok(f);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("cannot make a temporary file"))
}

/// Reads framed records from a stream, one at a time, through one
/// reusable buffer: a record that is wholly in it is handed out where it
/// is, not copied. A record's claimed length is never allocated up front:
/// the buffer grows only with bytes that actually arrive.
pub struct RecordReader<R: Read> {
    input: R,
    /// Bytes read; those from `start` to `end` not handed out yet.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The input has ended.
    ended: bool,
    /// Read ahead of the record wanted (a plain file), rather than asking
    /// the input for no byte after it (a decompressor, which would then
    /// find damage further on sooner than libpcp).
    ahead: bool,
    offset: u64,
    /// The size of a record's header as libpcp reads it ([`RecordReader::with_header`]).
    header: usize,
    /// [`RecordReader::ending_after_header`].
    end_after_header: bool,
}

/// How much [`RecordReader`] reads at a time (more when a record is
/// longer).
const READ_AHEAD: usize = 1 << 17;

impl<R: Read> RecordReader<R> {
    /// Read records from `input`, which starts `offset` bytes into its file.
    pub fn new(input: R, offset: u64) -> RecordReader<R> {
        RecordReader {
            input,
            buf: Vec::new(),
            start: 0,
            end: 0,
            ended: false,
            ahead: false,
            offset,
            header: 4,
            end_after_header: false,
        }
    }

    /// Records of a `.meta` file libpcp reads through its `.xz` reader:
    /// a header whose length is not positive, with nothing after it, is
    /// the end of the records (not `PM_ERR_LOGREC`).
    pub fn ending_after_header(self) -> RecordReader<R> {
        RecordReader { end_after_header: true, ..self }
    }

    /// Records whose headers libpcp reads as `header` bytes, at least the
    /// 4 of the length word (the default, as in a data volume; 8 in
    /// `.meta`, the length and the type): fewer bytes than that at the end
    /// of the file are the end of the records, not a record cut short.
    pub fn with_header(self, header: usize) -> RecordReader<R> {
        RecordReader { header: header.max(4), ..self }
    }

    /// [`RecordReader::new`] for a plain file: reads 128 KiB
    /// (`READ_AHEAD`) at a time.
    pub fn reading_ahead(input: R, offset: u64) -> RecordReader<R> {
        RecordReader { ahead: true, ..RecordReader::new(input, offset) }
    }

    /// Byte offset of the next record in the file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// How many bytes have been read and not handed out: once
    /// [`RecordReader::next_record`] has found the end, the bytes after
    /// the last record (too few for a header).
    pub fn left(&self) -> usize {
        self.end - self.start
    }

    /// Read until at least `want` bytes are waiting, or the input ends.
    fn fill(&mut self, want: usize) -> Result<(), PmError> {
        while self.end - self.start < want && !self.ended {
            if self.buf.len() - self.start < want && self.start > 0 {
                // the bytes waiting moved to the front, to make room
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                // (at most doubled: by no more than what has arrived)
                let more = self.buf.len().max(READ_AHEAD);
                self.buf.resize(self.buf.len() + more, 0);
            }
            let upto = if self.ahead { self.buf.len() } else { self.buf.len().min(self.start + want) };
            match self.input.read(&mut self.buf[self.end..upto]) {
                Ok(0) => self.ended = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_err(e)),
            }
        }
        Ok(())
    }

    /// The next record's payload; `Ok(None)` at the end of the file, which
    /// fewer bytes than a header ([`RecordReader::with_header`]) are too. A
    /// record cut short, or whose two length words disagree, is
    /// `PM_ERR_LOGREC`; a read failure is its errno.
    pub fn next_record(&mut self) -> Result<Option<&[u8]>, PmError> {
        self.fill(self.header)?;
        let waiting = &self.buf[self.start..self.end];
        let Some(head) = waiting.first_chunk::<4>().filter(|_| waiting.len() >= self.header) else {
            return Ok(None);
        };
        let len = u32::from_be_bytes(*head);
        // libpcp's xz reader knows the end of the file as it hands out the
        // last bytes: a header with no positive length that ends the file
        // is the end of the records there
        if self.end_after_header && len as i32 <= 0 {
            self.fill(self.header + 1)?;
            if self.left() == self.header {
                return Ok(None);
            }
        }
        let len = len as usize;
        if len < 8 {
            return Err(PmError::PM_ERR_LOGREC);
        }
        self.fill(len)?;
        let Some(record) = self.buf.get(self.start..self.end).and_then(|b| b.get(..len)) else {
            return Err(PmError::PM_ERR_LOGREC);
        };
        let (payload, used) = crate::raw::next_record(record)?.ok_or(PmError::PM_ERR_LOGREC)?;
        self.start += used;
        self.offset += used as u64;
        Ok(Some(payload))
    }
}

/// What [`RecordReader::next_meta_record`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum MetaStep<'a> {
    /// The end of the records.
    End,
    /// A record's payload: its type word and body (without the length
    /// words).
    Record(&'a [u8]),
    /// A help-text record libpcp passes over without reading its trailing
    /// length word (its type word has neither `PM_TEXT_ONELINE` nor
    /// `PM_TEXT_HELP`, or neither `PM_TEXT_PMID` nor `PM_TEXT_INDOM`): the
    /// next header is read from that word on.
    Skipped,
}

impl<R: Read> RecordReader<R> {
    /// The next `.meta` record, read as `__pmLogLoadMeta` reads it (the
    /// reader made [`RecordReader::with_header`] 8): a descriptor by its
    /// contents (the names its count and lengths say; the leading length
    /// word is not used), any other known type by its length word (fewer
    /// than 12 bytes is libpcp's failure to allocate the rest, `ENOMEM`);
    /// then a trailing length word that must equal the leading one.
    /// An unknown type is `PM_ERR_RECTYPE` at once; a header without a
    /// positive length is `PM_ERR_LOGREC`, as is a record cut short.
    pub fn next_meta_record(&mut self) -> Result<MetaStep<'_>, PmError> {
        use crate::raw::meta_type as t;
        const LOGREC: PmError = PmError::PM_ERR_LOGREC;
        self.fill(8)?;
        let Some((&head, _)) = self.buf[self.start..self.end].split_first_chunk::<8>() else {
            return Ok(MetaStep::End);
        };
        let len = i32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        let ty = u32::from_be_bytes([head[4], head[5], head[6], head[7]]);
        if len <= 0 {
            if self.end_after_header {
                self.fill(9)?;
                if self.left() == 8 {
                    return Ok(MetaStep::End);
                }
            }
            return Err(LOGREC);
        }
        let word = |r: &Self, at: usize| {
            let b = &r.buf[r.start + at..r.start + at + 4];
            u32::from_be_bytes([b[0], b[1], b[2], b[3]])
        };
        // the bytes up to the trailing length word
        let body_end = match ty {
            t::DESC => {
                // the descriptor (5 words) and the count of names
                self.need(8 + 24)?;
                let numnames = word(self, 28) as i32;
                let mut at = 8 + 24;
                for _ in 0..numnames.max(0) {
                    self.need(at + 4)?;
                    let n = word(self, at);
                    if n as i32 <= -1 && self.ahead {
                        // libpcp reads a plain file's name of a length
                        // below zero with a read(2) of nearly 2^64 bytes,
                        // which fails: EFAULT
                        return Err(PmError::from_errno(14));
                    }
                    let n = n as usize;
                    at = at.checked_add(4 + n).ok_or(LOGREC)?;
                    self.need(at)?;
                }
                at
            }
            t::INDOM_V2 | t::INDOM | t::INDOM_DELTA | t::LABEL_V2 | t::LABEL | t::TEXT => {
                let rlen = usize::try_from(len - 12).map_err(|_| PmError::from_errno(12))?;
                self.need(8 + rlen)?;
                // (a shorter text record is refused by the decoder, where
                // libpcp reads past its buffer)
                let kind = if ty == t::TEXT && rlen >= 4 { word(self, 8) } else { 3 | 12 };
                if kind & 3 == 0 || (rlen >= 8 && kind & 12 == 0) {
                    {
                        self.start += 8 + rlen;
                        self.offset += (8 + rlen) as u64;
                        return Ok(MetaStep::Skipped);
                    }
                }
                8 + rlen
            }
            _ => return Err(PmError::PM_ERR_RECTYPE),
        };
        self.need(body_end + 4)?;
        if word(self, body_end) != len as u32 {
            return Err(LOGREC);
        }
        let payload = &self.buf[self.start + 4..self.start + body_end];
        self.start += body_end + 4;
        self.offset += (body_end + 4) as u64;
        Ok(MetaStep::Record(payload))
    }

    /// At least `n` bytes waiting, or `PM_ERR_LOGREC` (the file ends
    /// first).
    fn need(&mut self, n: usize) -> Result<(), PmError> {
        self.fill(n)?;
        if self.left() < n {
            return Err(PmError::PM_ERR_LOGREC);
        }
        Ok(())
    }
}

fn io_err(e: io::Error) -> PmError {
    PmError::from_errno(e.raw_os_error().unwrap_or(5))
}

/// Read until `buf` is full or the input ends; how many bytes came.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, PmError> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err(e)),
        }
    }
    Ok(got)
}

/// Open an archive file to read: a plain file as it is (read in pieces
/// big enough not to want a buffer between), a compressed one through
/// [`open`]; and whether it is plain.
fn open_unbuffered(path: &Path) -> Result<(Box<dyn Read + Send>, bool), PmError> {
    if compression_of(&path.to_string_lossy()) == Compression::None {
        Ok((Box::new(File::open(path).map_err(io_err)?), true))
    } else {
        Ok((open(path).map_err(io_err)?, false))
    }
}

/// The first [`LABEL_HEAD`] bytes of the archive file `path`
/// (decompressed; all of it when it is shorter): what
/// [`crate::raw::check_label`] checks.
pub fn read_head(path: &Path) -> Result<Vec<u8>, PmError> {
    let (mut input, _) = open_unbuffered(path)?;
    let mut head = vec![0; LABEL_HEAD];
    let got = read_full(&mut input, &mut head)?;
    head.truncate(got);
    Ok(head)
}

/// Open one archive file, check its label, and return the label and a
/// record reader positioned after it. A file too short to hold the
/// label's first two words is `PM_ERR_NODATA`, as in libpcp.
pub fn open_records(path: &Path) -> Result<(Label, RecordReader<Box<dyn Read + Send>>), PmError> {
    let (mut input, plain) = open_unbuffered(path)?;
    let mut head = [0u8; 8];
    if read_full(&mut input, &mut head)? < 8 {
        return Err(PmError::PM_ERR_NODATA);
    }
    let len = label_length(head)?;
    let mut rec = head.to_vec();
    rec.resize(len, 0);
    if read_full(&mut input, &mut rec[8..])? < len - 8 {
        return Err(PmError::PM_ERR_LABEL);
    }
    let (label, used) = Label::decode(&rec)?;
    let records =
        if plain { RecordReader::reading_ahead(input, used as u64) } else { RecordReader::new(input, used as u64) };
    Ok((label, records))
}

/// The length of a label whose first two words are `head`: a label is
/// 132 (v2) or 808 (v3) bytes, and anything outside 8 to 4,096 is refused
/// before more is read.
fn label_length(head: [u8; 8]) -> Result<usize, PmError> {
    let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    if !(8..=4096).contains(&len) {
        return Err(PmError::PM_ERR_LABEL);
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream handing out its bytes in the sizes given, in turn.
    struct Chunky {
        data: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        turn: usize,
    }

    impl Read for Chunky {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let size = self.sizes.get(self.turn % self.sizes.len().max(1)).copied().unwrap_or(1).max(1);
            self.turn += 1;
            let n = size.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    proptest::proptest! {
        /// Records read from a stream, however it hands out its bytes,
        /// are what splitting the same bytes in memory finds, up to the
        /// same error.
        #[test]
        fn records_from_a_stream_are_records_from_memory(
            pieces in proptest::collection::vec(
                (0usize..3, proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)),
                0..8,
            ),
            sizes in proptest::collection::vec(1usize..100_000, 1..5),
        ) {
            // whole records mostly, now and then a broken one
            let mut data = Vec::new();
            for (kind, body) in &pieces {
                let len = (body.len() + 8) as u32;
                match kind {
                    0 | 1 => {
                        data.extend_from_slice(&len.to_be_bytes());
                        data.extend_from_slice(body);
                        data.extend_from_slice(&len.to_be_bytes());
                    }
                    _ => data.extend_from_slice(body),
                }
            }
            // asking for no more than each record, and reading ahead
            for ahead in [false, true] {
                let mut reader = chunky_reader(Chunky { data: data.clone(), at: 0, sizes: sizes.clone(), turn: 0 }, ahead);
                let mut at = 0;
                loop {
                    let want = crate::raw::next_record(&data[at..]).map(|r| r.map(|(p, used)| (p.to_vec(), used)));
                    let got = reader.next_record().map(|r| r.map(<[u8]>::to_vec));
                    proptest::prop_assert_eq!(got.clone(), want.clone().map(|r| r.map(|(p, _)| p)));
                    match want {
                        Ok(Some((_, used))) => {
                            at += used;
                            proptest::prop_assert_eq!(reader.offset(), at as u64);
                        }
                        _ => break,
                    }
                }
            }
        }
    }

    #[test]
    fn archive_bases_like_pcp() {
        let dir = std::env::temp_dir().join(format!("pcp-rs-base-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["a.meta", "a.0", "b.0.xz"] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let d = dir.to_string_lossy().into_owned();
        for (name, base) in [
            (format!("{d}/a"), format!("{d}/a")),
            (format!("{d}/a/"), format!("{d}/a")),
            (format!("{d}//a//"), format!("{d}/a")),
            (format!("{d}/a.0"), format!("{d}/a")),
            (format!("{d}/a.meta"), format!("{d}/a")),
            // a file's name with a slash after it names no file
            (format!("{d}/a.0/"), format!("{d}/a.0")),
            (format!("{d}/b.0"), format!("{d}/b")),
            (format!("{d}/b.0.xz"), format!("{d}/b")),
            // not there: left as it is
            (format!("{d}/c.0"), format!("{d}/c.0")),
            ("v3/".to_string(), "v3".to_string()),
            ("/".to_string(), "/".to_string()),
            ("/v3//".to_string(), "/v3".to_string()),
        ] {
            assert_eq!(archive_base(&name), PathBuf::from(&base), "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn base_names_like_pcp() {
        for (name, base) in [
            ("a/b.meta", "a/b"),
            ("b.index", "b"),
            ("b.0", "b"),
            ("b.12.xz", "b"),
            ("b.meta.gz", "b"),
            ("20180416.10.00", "20180416.10"),
            ("plain", "plain"),
            ("x.y", "x.y"),
            (".0", ".0"),
        ] {
            assert_eq!(base_name(name), base, "{name}");
        }
    }

    #[test]
    fn xz_sizes_come_from_the_index() {
        let dir = std::env::temp_dir().join(format!("pcp-rs-xz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data: Vec<u8> = (0..300_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        // two streams back to back, then stream padding
        let mut z = Vec::new();
        for part in [&data[..500_000], &data[500_000..]] {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
            std::io::Write::write_all(&mut e, part).unwrap();
            z.extend(e.finish().unwrap());
        }
        z.extend_from_slice(&[0; 8]);
        let path = dir.join("t.0.xz");
        std::fs::write(&path, &z).unwrap();
        assert_eq!(xz_size(&mut File::open(&path).unwrap()), Some(data.len() as u64));
        assert_eq!(content_size(&path).unwrap(), data.len() as u64);
        std::fs::write(&path, &z[..z.len() - 20]).unwrap();
        assert_eq!(xz_size(&mut File::open(&path).unwrap()), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn suffixes_give_the_compression() {
        assert_eq!(compression_of("a.0.xz"), Compression::Xz);
        assert_eq!(compression_of("a.meta.lzma"), Compression::Xz);
        assert_eq!(compression_of("a.0.bz"), Compression::Bzip2);
        assert_eq!(compression_of("a.0.z"), Compression::Gzip);
        assert_eq!(compression_of("a.0"), Compression::None);
    }

    /// A record reader over `chunky`, reading ahead or not.
    fn chunky_reader(chunky: Chunky, ahead: bool) -> RecordReader<Chunky> {
        if ahead {
            RecordReader::reading_ahead(chunky, 0)
        } else {
            RecordReader::new(chunky, 0)
        }
    }

    #[test]
    fn records_longer_than_a_read_are_whole() {
        let mut data = Vec::new();
        let bodies: Vec<Vec<u8>> = [70_000usize, 10, 130_000, 65_528, 3]
            .iter()
            .enumerate()
            .map(|(k, &n)| (0..n).map(|i| (i * 7 + k) as u8).collect())
            .collect();
        for body in &bodies {
            let len = (body.len() + 8) as u32;
            data.extend_from_slice(&len.to_be_bytes());
            data.extend_from_slice(body);
            data.extend_from_slice(&len.to_be_bytes());
        }
        for ahead in [false, true] {
            let mut r =
                chunky_reader(Chunky { data: data.clone(), at: 0, sizes: vec![50_000, 1, 9_999], turn: 0 }, ahead);
            for body in &bodies {
                assert_eq!(r.next_record().unwrap(), Some(&body[..]));
            }
            assert_eq!(r.next_record().unwrap(), None);
            assert_eq!(r.offset(), data.len() as u64);
        }
    }

    #[test]
    fn record_reader_refuses_short_and_inconsistent_records() {
        let mut rec = 12u32.to_be_bytes().to_vec();
        rec.extend_from_slice(b"abcd");
        rec.extend_from_slice(&12u32.to_be_bytes());
        let mut r = RecordReader::new(&rec[..], 0);
        assert_eq!(r.next_record().unwrap(), Some(&b"abcd"[..]));
        assert_eq!(r.next_record().unwrap(), None);
        let mut r = RecordReader::new(&rec[..10], 0);
        assert_eq!(r.next_record(), Err(PmError::PM_ERR_LOGREC));
        // a huge claimed length with little data: no huge allocation
        let mut huge = u32::MAX.to_be_bytes().to_vec();
        huge.extend_from_slice(&[0u8; 16]);
        let mut r = RecordReader::new(&huge[..], 0);
        assert_eq!(r.next_record(), Err(PmError::PM_ERR_LOGREC));
    }

    /// What libpcp's readers take for the end of the records: fewer bytes
    /// than a header (4 in a volume, 8 in `.meta`); and, where its xz
    /// reader reads `.meta`, a header of no length that ends the file.
    #[test]
    fn fragments_too_short_for_a_header_end_the_records() {
        let rec = [&12u32.to_be_bytes()[..], b"abcd", &12u32.to_be_bytes()].concat();
        let with = |tail: &[u8]| [&rec[..], tail].concat();
        let read = |data: &[u8], header: usize, xz: bool| {
            let mut r = RecordReader::new(data, 0).with_header(header);
            if xz {
                r = r.ending_after_header();
            }
            let first = r.next_record().map(|p| p.map(<[u8]>::to_vec));
            assert_eq!(first, Ok(Some(b"abcd".to_vec())));
            let second = r.next_record().map(|p| p.map(<[u8]>::to_vec));
            (second, r.left())
        };
        assert_eq!(read(&with(&[0; 3]), 4, false), (Ok(None), 3));
        assert_eq!(read(&with(&[0; 4]), 4, false), (Err(PmError::PM_ERR_LOGREC), 4));
        assert_eq!(read(&with(&[0; 7]), 8, false), (Ok(None), 7));
        assert_eq!(read(&with(&[0; 8]), 8, false), (Err(PmError::PM_ERR_LOGREC), 8));
        assert_eq!(read(&with(&[0; 8]), 8, true), (Ok(None), 8));
        assert_eq!(read(&with(&[0xff; 8]), 8, true), (Ok(None), 8));
        assert_eq!(read(&with(&[0; 9]), 8, true), (Err(PmError::PM_ERR_LOGREC), 9));
        assert_eq!(read(&rec, 8, false), (Ok(None), 0));
    }
}
