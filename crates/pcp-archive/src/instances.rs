//! The instances of an instance-domain record, kept as logged and read in
//! place: an archive's metadata may hold tens of thousands of instances
//! that a tool never asks about, so opening an archive checks them
//! (as `__pmLogLoadInDom` does) without decoding them, and the names
//! handed out later share the record's bytes rather than copies.

use pcp_core::PmError;
use std::sync::Arc;

/// An instance name: a C string inside the record that logged it (shared
/// with every set made from that record), or a copy of its own.
#[derive(Clone)]
pub struct InstName {
    bytes: Arc<[u8]>,
    start: u32,
    len: u32,
}

impl InstName {
    /// A name of its own (a copy of `name`).
    pub fn new(name: &[u8]) -> InstName {
        InstName::within(Arc::from(name), 0, name.len())
    }

    /// Is `other` this very copy of the name (not merely equal)?
    pub fn same_copy(&self, other: &InstName) -> bool {
        Arc::ptr_eq(&self.bytes, &other.bytes) && self.start == other.start
    }

    fn within(bytes: Arc<[u8]>, start: usize, len: usize) -> InstName {
        // records are framed by a 32-bit length, so offsets fit
        InstName { bytes, start: start as u32, len: len as u32 }
    }
}

impl std::ops::Deref for InstName {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[self.start as usize..][..self.len as usize]
    }
}

impl PartialEq for InstName {
    fn eq(&self, other: &InstName) -> bool {
        **self == **other
    }
}

impl Eq for InstName {}

impl std::hash::Hash for InstName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl std::fmt::Debug for InstName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self))
    }
}

impl From<&[u8]> for InstName {
    fn from(name: &[u8]) -> InstName {
        InstName::new(name)
    }
}

/// The instances of one instance-domain record in the order logged: an
/// identifier and a name each, or for a version 3 delta record, no name
/// for an instance it deletes.
///
/// Held as the record has them (identifiers, then name offsets, then the
/// names, all big-endian), already checked: every name offset leads to a
/// NUL-terminated name inside the record, or is -1 in a delta record.
#[derive(Clone)]
pub struct Instances {
    /// Identifiers (4 bytes each), name offsets (4 bytes each), names.
    bytes: Arc<[u8]>,
    n: usize,
}

impl Instances {
    /// Check the `n` instances at the start of `rest` (the rest of a
    /// record after its instance count) and keep them: `PM_ERR_LOGREC`
    /// when the record is too short for them, or a name offset is
    /// negative (other than -1 in a `delta` record) or has no NUL at or
    /// after it.
    pub(crate) fn parse(rest: &[u8], n: usize, delta: bool) -> Result<Instances, PmError> {
        Instances::check(rest, n, delta)?;
        Ok(Instances { bytes: Arc::from(rest), n })
    }

    /// [`Instances::parse`]'s checks alone.
    pub(crate) fn check(rest: &[u8], n: usize, delta: bool) -> Result<(), PmError> {
        const LOGREC: PmError = PmError::PM_ERR_LOGREC;
        let names = rest.get(n.checked_mul(8).ok_or(LOGREC)?..).ok_or(LOGREC)?;
        // a name is a C string when a NUL follows its start: when it
        // starts at or before the last NUL
        let last_nul = memchr::memrchr(0, names);
        for k in 0..n {
            // (an identifier below zero is not an instance)
            if word(rest, k) < 0 {
                return Err(LOGREC);
            }
            let off = word(rest, n + k);
            if off == -1 && delta {
                continue;
            }
            let off = usize::try_from(off).map_err(|_| LOGREC)?;
            if last_nul.is_none_or(|last| off > last) {
                return Err(LOGREC);
            }
        }
        Ok(())
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.n
    }

    /// None at all?
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The `k`th identifier (`k < len()`).
    pub fn id(&self, k: usize) -> i32 {
        word(&self.bytes, k)
    }

    /// Where the `k`th name is in `bytes` (start, length up to its NUL),
    /// or `None` for a deletion.
    fn name_at(&self, k: usize) -> Option<(usize, usize)> {
        // checked when parsed: -1 or the start of a C string
        let start = 8 * self.n + usize::try_from(word(&self.bytes, self.n + k)).ok()?;
        let s = &self.bytes[start..];
        Some((start, memchr::memchr(0, s).unwrap_or(s.len())))
    }

    /// The `k`th name (up to its NUL), or `None` for an instance a delta
    /// record deletes.
    pub fn name(&self, k: usize) -> Option<&[u8]> {
        self.name_at(k).map(|(start, len)| &self.bytes[start..start + len])
    }

    /// [`Instances::name`], shared with the record.
    pub fn shared_name(&self, k: usize) -> Option<InstName> {
        let (start, len) = self.name_at(k)?;
        Some(InstName::within(Arc::clone(&self.bytes), start, len))
    }

    /// Each instance in the order logged.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (i32, Option<&[u8]>)> + Clone + '_ {
        (0..self.n).map(|k| (self.id(k), self.name(k)))
    }

    /// Positions in ascending order of identifier (the order logged among
    /// equal ones): the order libpcp sorts a set into.
    pub fn sorted(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.n).collect();
        if !(1..self.n).all(|k| self.id(k - 1) <= self.id(k)) {
            order.sort_by_key(|&k| self.id(k));
        }
        order
    }

    /// The same instances, each an identifier with its name, in both
    /// (after sorting by identifier)?
    pub fn same_sorted(&self, other: &Instances) -> bool {
        self.n == other.n && {
            let (a, b) = (self.sorted(), other.sorted());
            a.iter().zip(&b).all(|(&i, &j)| self.id(i) == other.id(j) && self.name(i) == other.name(j))
        }
    }
}

/// An instance-domain record's instances: read with the record, or
/// checked then and left in the `.meta` file until first wanted (see
/// [`Deferred`]).
#[derive(Clone, Debug)]
pub enum Logged {
    /// Read with the record.
    Read(Instances),
    /// Left in the file.
    Deferred(Deferred),
}

impl Logged {
    /// How many.
    pub fn len(&self) -> usize {
        match self {
            Logged::Read(i) => i.len(),
            Logged::Deferred(d) => d.0.n,
        }
    }

    /// None at all?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The instances: those of a deferred record are read from the file
    /// the first time (and shared from then on). `PM_ERR_LOGREC` when the
    /// record there is no longer the one checked when the archive was
    /// opened; the errno of a failed read.
    pub fn get(&self) -> Result<Instances, PmError> {
        match self {
            Logged::Read(i) => Ok(i.clone()),
            Logged::Deferred(d) => d.load(),
        }
    }
}

impl From<Instances> for Logged {
    fn from(i: Instances) -> Logged {
        Logged::Read(i)
    }
}

/// Equal when both can be had and are the same instances.
impl PartialEq for Logged {
    fn eq(&self, other: &Logged) -> bool {
        matches!((self.get(), other.get()), (Ok(a), Ok(b)) if a == b)
    }
}

impl Eq for Logged {}

/// A large instance-domain record of a plain `.meta` file, checked when
/// the archive was opened but not kept: most of an archive's metadata is
/// such records (a process instance domain logged again and again), and a
/// tool reads few of them, while keeping them all costs the copy and the
/// memory (1.9 MB in 113 records over PCP's QA archive `20180102`, whose
/// copying took about two fifths of the time pmval took to open it).
/// The file stays open; the record is read
/// again when first wanted and must still be the one checked: the same
/// length words, the same words before the instances, and instances with
/// the same hash (64 bits, taken when checked).
#[derive(Clone)]
pub struct Deferred(Arc<DeferredRecord>);

struct DeferredRecord {
    file: Arc<std::fs::File>,
    /// Where the record's leading length word is in the file.
    at: u64,
    /// The record's length, both length words included.
    len: u32,
    /// The payload's words before the instances (type, time, instance
    /// domain and count), as checked.
    head: Box<[u8]>,
    /// The hash of the instances as checked.
    hash: u64,
    n: usize,
    delta: bool,
    loaded: std::sync::OnceLock<Instances>,
}

/// The hash a deferred record's instances are known by.
fn body_hash(body: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x7063_702d_7273).hash_one(body)
}

impl Deferred {
    /// A record whose payload (`payload`: after the leading length word)
    /// starts at `at + 4` in `file` and whose instances, `n` of them, start
    /// `head` bytes into the payload: checked now (as
    /// [`Instances::parse`]), read again when wanted.
    pub(crate) fn new(
        file: &Arc<std::fs::File>,
        at: u64,
        payload: &[u8],
        head: usize,
        n: usize,
        delta: bool,
    ) -> Result<Deferred, PmError> {
        let rest = payload.get(head..).ok_or(PmError::PM_ERR_LOGREC)?;
        Instances::check(rest, n, delta)?;
        // the length words and the payload: the record as framed
        let len = u32::try_from(payload.len() + 8).map_err(|_| PmError::PM_ERR_LOGREC)?;
        Ok(Deferred(Arc::new(DeferredRecord {
            file: Arc::clone(file),
            at,
            len,
            head: payload[..head].into(),
            hash: body_hash(rest),
            n,
            delta,
            loaded: std::sync::OnceLock::new(),
        })))
    }

    fn load(&self) -> Result<Instances, PmError> {
        use std::os::unix::fs::FileExt;
        const LOGREC: PmError = PmError::PM_ERR_LOGREC;
        let d = &*self.0;
        if let Some(i) = d.loaded.get() {
            return Ok(i.clone());
        }
        let mut rec = vec![0u8; d.len as usize];
        d.file.read_exact_at(&mut rec, d.at).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => LOGREC,
            _ => PmError::from_errno(e.raw_os_error().unwrap_or(5)),
        })?;
        let len = d.len.to_be_bytes();
        let end = rec.len() - 4;
        let body = rec.get(4 + d.head.len()..end).ok_or(LOGREC)?;
        if rec[..4] != len || rec[end..] != len || !rec[4..end].starts_with(&d.head) || body_hash(body) != d.hash {
            return Err(LOGREC);
        }
        let insts = Instances::parse(body, d.n, d.delta)?;
        Ok(d.loaded.get_or_init(|| insts).clone())
    }
}

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Deferred {{ at: {}, len: {}, n: {} }}", self.0.at, self.0.len, self.0.n)
    }
}

/// The `k`th big-endian word of `bytes`.
fn word(bytes: &[u8], k: usize) -> i32 {
    let w = &bytes[4 * k..4 * k + 4];
    i32::from_be_bytes([w[0], w[1], w[2], w[3]])
}

/// Instances made in memory, encoded as a record holds them.
impl<N: AsRef<[u8]>> FromIterator<(i32, Option<N>)> for Instances {
    fn from_iter<I: IntoIterator<Item = (i32, Option<N>)>>(iter: I) -> Instances {
        let list: Vec<(i32, Option<N>)> = iter.into_iter().collect();
        let mut ids = Vec::with_capacity(8 * list.len());
        let mut offs = Vec::with_capacity(4 * list.len());
        let mut names = Vec::new();
        for (id, name) in &list {
            ids.extend_from_slice(&id.to_be_bytes());
            let off = match name {
                Some(name) => {
                    let off = names.len() as i32;
                    names.extend_from_slice(name.as_ref());
                    names.push(0);
                    off
                }
                None => -1,
            };
            offs.extend_from_slice(&off.to_be_bytes());
        }
        ids.extend_from_slice(&offs);
        ids.extend_from_slice(&names);
        Instances { bytes: Arc::from(ids), n: list.len() }
    }
}

impl PartialEq for Instances {
    fn eq(&self, other: &Instances) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Instances {}

impl std::fmt::Debug for Instances {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |n: Option<&[u8]>| n.map(|n| String::from_utf8_lossy(n).into_owned());
        f.debug_list().entries(self.iter().map(|(id, n)| (id, show(n)))).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(ids: &[i32], offs: &[i32], names: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        ids.iter().chain(offs).for_each(|w| b.extend_from_slice(&w.to_be_bytes()));
        b.extend_from_slice(names);
        b
    }

    #[test]
    fn parse_reads_names_in_place() {
        let rec = record(&[3, 1, 2], &[0, 4, -1], b"abc\0de\0");
        let insts = Instances::parse(&rec, 3, true).unwrap();
        let got: Vec<_> = insts.iter().collect();
        assert_eq!(got, [(3, Some(&b"abc"[..])), (1, Some(&b"de"[..])), (2, None)]);
        assert_eq!(insts.sorted(), [1, 2, 0]);
        assert_eq!(&*insts.shared_name(1).unwrap(), b"de");
        assert!(insts.shared_name(2).is_none());
        let made: Instances = [(3, Some("abc")), (1, Some("de")), (2, None)].into_iter().collect();
        assert_eq!(made, insts);
        assert!(made.same_sorted(&insts));
        let other: Instances = [(1, Some("de")), (2, None), (3, Some("abc"))].into_iter().collect();
        assert!(other.same_sorted(&insts) && other != insts);
    }

    proptest::proptest! {
        /// Whatever the offsets and names, a record is either refused or
        /// read back without panicking, each name a C string that starts
        /// where its offset says.
        #[test]
        fn parsed_records_read_back(
            ids in proptest::collection::vec(proptest::prelude::any::<i32>(), 0..6),
            offs in proptest::collection::vec(-2i32..12, 6),
            names in proptest::collection::vec(proptest::sample::select(&b"ab\0"[..]), 0..10),
            delta: bool,
        ) {
            let n = ids.len();
            let rec = record(&ids, &offs[..n], &names);
            if let Ok(insts) = Instances::parse(&rec, n, delta) {
                for k in 0..n {
                    proptest::prop_assert_eq!(insts.id(k), ids[k]);
                    match usize::try_from(offs[k]) {
                        Ok(off) => {
                            let name = insts.name(k).unwrap();
                            proptest::prop_assert!(names[off..].starts_with(name) && names[off + name.len()] == 0);
                            proptest::prop_assert_eq!(&*insts.shared_name(k).unwrap(), name);
                        }
                        Err(_) => proptest::prop_assert!(delta && offs[k] == -1 && insts.name(k).is_none()),
                    }
                }
                let sorted = insts.sorted();
                proptest::prop_assert!(sorted.windows(2).all(|w| insts.id(w[0]) <= insts.id(w[1])));
                proptest::prop_assert!(insts.same_sorted(&insts.iter().collect()));
            }
        }
    }

    #[test]
    fn parse_refuses_what_libpcp_refuses() {
        let err = Err(PmError::PM_ERR_LOGREC);
        // -1 deletes only in a delta record
        assert_eq!(Instances::parse(&record(&[1], &[-1], b"a\0"), 1, false), err);
        assert_eq!(Instances::parse(&record(&[1], &[-2], b"a\0"), 1, true), err);
        // a name must end inside the record
        assert_eq!(Instances::parse(&record(&[1], &[2], b"a\0b"), 1, false), err);
        assert_eq!(Instances::parse(&record(&[1], &[0], b"ab"), 1, false), err);
        assert_eq!(Instances::parse(&record(&[1], &[9], b"a\0"), 1, false), err);
        // too short for its instances
        assert_eq!(Instances::parse(&record(&[1], &[], b""), 1, false), err);
        // a name may be empty, and names may overlap
        let ok = Instances::parse(&record(&[1, 2], &[1, 0], b"a\0"), 2, false).unwrap();
        assert_eq!(ok.iter().collect::<Vec<_>>(), [(1, Some(&b""[..])), (2, Some(&b"a"[..]))]);
    }

    /// A file holding `before` bytes, then the record framing `payload`.
    fn framed(dir: &std::path::Path, name: &str, before: usize, payload: &[u8]) -> (Arc<std::fs::File>, u64) {
        let len = (payload.len() as u32 + 8).to_be_bytes();
        let mut bytes = vec![0xa5; before];
        bytes.extend_from_slice(&len);
        bytes.extend_from_slice(payload);
        bytes.extend_from_slice(&len);
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        (Arc::new(std::fs::File::open(&path).unwrap()), before as u64)
    }

    proptest::proptest! {
        /// Whatever happens to the file after the check (a byte changed,
        /// the file cut short or grown), a deferred record reads back as
        /// the instances checked or as `PM_ERR_LOGREC`: never others, never
        /// a panic.
        #[test]
        fn a_deferred_record_reads_back_as_checked_or_not_at_all(
            at in 0usize..80,
            change in proptest::option::of((0usize..200, 1u8..=255)),
            cut in proptest::option::of(0usize..200),
            grow in 0usize..8,
        ) {
            let dir = std::env::temp_dir().join(format!("pcp-rs-deferred-prop-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let head = [0, 0, 0, 5, 1, 2, 3, 4];
            let body = record(&[7, 3, 9], &[4, -1, 0], b"xyz\0ab\0");
            let payload = [&head[..], &body].concat();
            let want = Instances::parse(&body, 3, true).unwrap();
            let name = "record";
            let (file, off) = framed(&dir, name, at, &payload);
            let d = Deferred::new(&file, off, &payload, head.len(), 3, true).unwrap();
            let mut bytes = std::fs::read(dir.join(name)).unwrap();
            if let Some((i, x)) = change {
                if let Some(b) = bytes.get_mut(i) {
                    *b ^= x;
                }
            }
            if let Some(n) = cut {
                bytes.truncate(n);
            }
            bytes.extend(std::iter::repeat_n(0u8, grow));
            std::fs::write(dir.join(name), &bytes).unwrap();
            let got = Logged::Deferred(d).get();
            std::fs::remove_dir_all(&dir).unwrap();
            proptest::prop_assert!(got == Ok(want.clone()) || got == Err(PmError::PM_ERR_LOGREC), "{got:?}");
        }
    }

    #[test]
    fn a_deferred_record_is_read_again_only_as_it_was_checked() {
        let dir = std::env::temp_dir().join(format!("pcp-rs-deferred-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let head = [0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 3];
        let body = record(&[3, 1, 2], &[0, 4, 7], b"abc\0de\0f\0");
        let payload = [&head[..], &body].concat();
        let want = Instances::parse(&body, 3, false).unwrap();
        let defer = |file: &Arc<std::fs::File>, at| Deferred::new(file, at, &payload, head.len(), 3, false);

        let (file, at) = framed(&dir, "ok", 100, &payload);
        let logged = Logged::Deferred(defer(&file, at).unwrap());
        assert_eq!((logged.len(), logged.is_empty()), (3, false));
        assert_eq!(logged.get(), Ok(want.clone()));
        // read once: the same instances from then on, whatever the file
        std::fs::write(dir.join("ok"), b"").unwrap();
        assert_eq!(logged.get(), Ok(want.clone()));
        assert_eq!(Logged::Deferred(defer(&file, at).unwrap()).get(), Err(PmError::PM_ERR_LOGREC));

        // what no longer matches: a word before the instances, an
        // instance, a length word, instances that fail the checks
        let mut changed = payload.clone();
        changed[7] = 8;
        let (file, at) = framed(&dir, "head", 3, &changed);
        assert_eq!(Logged::Deferred(defer(&file, at).unwrap()).get(), Err(PmError::PM_ERR_LOGREC));
        let mut id = payload.clone();
        id[head.len() + 3] = 4;
        let (file, at) = framed(&dir, "id", 3, &id);
        assert_eq!(Logged::Deferred(defer(&file, at).unwrap()).get(), Err(PmError::PM_ERR_LOGREC));
        let (file, at) = framed(&dir, "len", 3, &payload[..payload.len() - 1]);
        assert_eq!(Logged::Deferred(defer(&file, at).unwrap()).get(), Err(PmError::PM_ERR_LOGREC));
        let mut bad = payload.clone();
        let last = bad.len() - 1;
        bad[last] = b'x';
        let (file, at) = framed(&dir, "names", 0, &bad);
        assert_eq!(Logged::Deferred(defer(&file, at).unwrap()).get(), Err(PmError::PM_ERR_LOGREC));
        // and instances that fail the checks are refused at once
        assert_eq!(Deferred::new(&file, at, &bad, head.len(), 3, false).err(), Some(PmError::PM_ERR_LOGREC));
        assert_eq!(Deferred::new(&file, at, &payload, payload.len() + 1, 3, false).err(), Some(PmError::PM_ERR_LOGREC));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
