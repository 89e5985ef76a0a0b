//! An archive opened by name: its files, label, metadata and extent.

use crate::files::{
    archive_base, find_file, open_records, read_head, volumes, Compression, MetaStep, COMPRESSION_SUFFIXES,
};
use crate::meta::desc_conflict;
use crate::raw::{check_label, IndexEntry, Label, MetaRecord, VOL_INDEX, VOL_META};
use crate::volume::Volume;
use pcp_core::debug::Trace;
use pcp_core::error::Subject;
use pcp_core::support::hash::PmHash;
use pcp_core::support::x87::timestamp_sub;
use pcp_core::{Desc, Error, PmError, PmId};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A data volume's number, and the volume opened.
type OpenVolume = (i32, std::sync::Arc<Volume>);

/// An archive on disk, checked the way `pmNewContext(PM_CONTEXT_ARCHIVE)`
/// checks it: a label on every file and metadata that decodes.
///
/// ```
/// use pcp_archive::archive::Archive;
/// use pcp_archive::raw::{MetaRecord, Version};
/// use pcp_core::{PmError, PmId};
///
/// let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
/// // by its base name, or by any of its files
/// let v2 = Archive::open(&format!("{fixtures}/v2.meta")).unwrap();
/// let v3 = Archive::open(&format!("{fixtures}/v3")).unwrap();
/// assert_eq!((v2.label().version, v3.label().version), (Version::V2, Version::V3));
/// assert_eq!(v2.label().start.to_string(), "2026-11-21T18:25:11.758202000Z"); // microseconds
/// assert_eq!((&v3.label().timezone[..], &v3.label().zoneinfo[..]), (&b"UTC"[..], &b":Etc/UTC"[..]));
/// assert_eq!(v3.volumes(), [0]);
///
/// // the metadata: descriptors with their names, instance domains, ...
/// let names = v3.meta().iter().find_map(|r| match r {
///     MetaRecord::Desc { desc, names } if desc.pmid == PmId::new(29, 0, 2) => Some(names.clone()),
///     _ => None,
/// });
/// assert_eq!(names, Some(vec![b"sample.dupnames.two.seconds".to_vec(), b"sample.seconds".to_vec()]));
///
/// assert_eq!(Archive::open(&format!("{fixtures}/nosuch")).unwrap_err(), PmError::from_errno(2));
/// ```
#[derive(Clone, Debug)]
pub struct Archive {
    base: PathBuf,
    label: Label,
    volumes: Vec<u32>,
    /// Shared: a replay holds a copy of the archive. (A `Vec` in the `Arc`:
    /// making an `Arc<[T]>` would copy the records.)
    meta: std::sync::Arc<Vec<MetaRecord>>,
    /// The first data volume, opened to check its label (a compressed one
    /// decompressing since), for the first reader of the volumes to take.
    first_volume: std::sync::Arc<std::sync::Mutex<Option<OpenVolume>>>,
}

impl Archive {
    /// Open the archive `name` names: its base name, or any of its files.
    /// Labels' feature bits are not checked. The error names the archive.
    pub fn open(name: &str) -> Result<Archive, Error> {
        refuse_empty(name).and_then(|()| Archive::open_in_set(name, false, false, None)).map_err(on_archive(name))
    }

    /// [`Archive::open`] for a reader that replays the archive (a
    /// context); with `check_features`, labels with feature bits this
    /// reader does not know are refused (`PM_ERR_FEATURE`). The large
    /// instance-domain records of a plain `.meta` file are checked but left
    /// in it, the file kept open, until first wanted
    /// ([`crate::raw::Deferred`]).
    ///
    /// The files are checked as `__pmLogOpen` checks them, and the first
    /// failure in its order is the error: the first volume's label, the
    /// temporal index's, the metadata's, the metadata records (there must
    /// be a metric among them), then that the metadata is the first
    /// volume's. A file holding only its label is `PM_ERR_NODATA`. The
    /// error names the archive.
    pub fn open_checking(name: &str, check_features: bool) -> Result<Archive, Error> {
        refuse_empty(name)
            .and_then(|()| Archive::open_in_set(name, true, check_features, None))
            .map_err(on_archive(name))
    }

    /// [`Archive::open_checking`] (with `defer`, large instance-domain
    /// records left in the file) for an archive joining others from the
    /// host `host` (`checkLabelConsistency`): another host is
    /// `PM_ERR_LOGHOST`, found after the labels are checked and before the
    /// metadata's records are.
    fn open_in_set(name: &str, defer: bool, check_features: bool, host: Option<&[u8]>) -> Result<Archive, PmError> {
        let base = archive_base(name);
        let Some(meta_path) = find_file(&base, ".meta") else {
            // some of the archive's files without the metadata: not a whole
            // archive
            let some = find_file(&base, ".index").is_some() || volumes(&base).is_ok_and(|v| !v.is_empty());
            return Err(if some { PmError::PM_ERR_LOGFILE } else { PmError::from_errno(2) });
        };
        let volumes = volumes(&base);
        let first_label = match &volumes {
            Ok(v) => v.first().map(|&v| check_first_labels(&base, v, check_features)),
            Err(_) => None,
        };
        let meta = read_meta(&meta_path, defer, check_features);
        let volumes = volumes.map_err(|e| PmError::from_errno(e.raw_os_error().unwrap_or(2)))?;
        let (first_label, first_volume) = first_label.ok_or(PmError::PM_ERR_LOGFILE)??;
        let (label, meta) = meta?;
        if label.version != first_label.version {
            return Err(PmError::PM_ERR_LABEL);
        }
        if host.is_some_and(|h| h != first_label.hostname) {
            return Err(PmError::PM_ERR_LOGHOST);
        }
        let meta = meta?;
        if !meta.iter().any(|r| matches!(r, MetaRecord::Desc { .. })) {
            return Err(PmError::PM_ERR_LOGREC);
        }
        if label.pid != first_label.pid || label.hostname != first_label.hostname {
            return Err(PmError::PM_ERR_LABEL);
        }
        let first_volume = std::sync::Arc::new(std::sync::Mutex::new(Some(first_volume)));
        Ok(Archive { base, label, volumes, meta: std::sync::Arc::new(meta), first_volume })
    }

    /// The archive label (`pmGetArchiveLabel`).
    #[doc(alias = "pmGetArchiveLabel")]
    pub fn label(&self) -> &Label {
        &self.label
    }

    /// The metadata records, in file order.
    pub fn meta(&self) -> &[MetaRecord] {
        &self.meta
    }

    /// Give up the metadata records (this copy's: clones share them):
    /// [`Archive::meta`] is empty afterwards. For a reader that has indexed
    /// them and needs nothing more of them; they are most of an open
    /// archive's memory.
    pub fn forget_meta(&mut self) {
        self.meta = std::sync::Arc::new(Vec::new());
    }

    /// Keep only the metadata records `keep` accepts (in this copy: clones
    /// made before keep theirs). For a reader that has indexed the rest.
    pub fn retain_meta(&mut self, mut keep: impl FnMut(&MetaRecord) -> bool) {
        match std::sync::Arc::get_mut(&mut self.meta) {
            Some(records) => {
                records.retain(|r| keep(r));
                records.shrink_to_fit();
            }
            None => self.meta = std::sync::Arc::new(self.meta.iter().filter(|r| keep(r)).cloned().collect()),
        }
    }

    /// The first data volume as the opening left it, once.
    pub(crate) fn take_first_volume(&self) -> Option<OpenVolume> {
        self.first_volume.lock().ok()?.take()
    }

    /// The data volume numbers.
    pub fn volumes(&self) -> &[u32] {
        &self.volumes
    }

    /// The archive's base name.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The temporal index entries (none when there is no index file); a
    /// partial entry at the end is left out.
    pub fn index(&self) -> Result<Vec<IndexEntry>, PmError> {
        let Some(path) = find_file(&self.base, ".index") else { return Ok(Vec::new()) };
        let mut data = Vec::new();
        crate::files::open(&path)
            .and_then(|mut f| std::io::Read::read_to_end(&mut f, &mut data))
            .map_err(|e| PmError::from_errno(e.raw_os_error().unwrap_or(5)))?;
        let (label, used) = Label::decode(&data)?;
        IndexEntry::decode_all(&data[used..], label.version)
    }
}

/// The label and records of the metadata file `path`. With `defer`, for
/// a reader that replays the archive, a plain file is kept open and its
/// large instance-domain records left in it (see `Deferred`).
///
/// The outer error is the label's (`PM_ERR_NODATA` for a file holding
/// nothing more), the inner one the records'.
fn read_meta(path: &Path, defer: bool, check_features: bool) -> Result<(Label, MetaRecords), PmError> {
    let plain = defer && crate::files::compression_of(&path.to_string_lossy()) == Compression::None;
    let keep = if plain { std::fs::File::open(path).ok().map(std::sync::Arc::new) } else { None };
    let (label, records) = open_records(path)?;
    let mut records = records.with_header(META_HEADER);
    if crate::files::compression_of(&path.to_string_lossy()) == Compression::Xz {
        records = records.ending_after_header();
    }
    label.check(VOL_META, check_features)?;
    let meta = decode_meta(&mut records, label.version, keep.as_ref());
    let meta = meta?.map(|mut meta| {
        // held as long as the archive is open: without the slack growing
        // left (up to half of it)
        meta.shrink_to_fit();
        meta
    });
    Ok((label, meta))
}

/// The header of a `.meta` record as libpcp reads it: the length and the
/// type (fewer bytes at the end of the file end its records).
const META_HEADER: usize = 8;

/// A metadata file's records, or the error that stopped their decoding.
type MetaRecords = Result<Vec<MetaRecord>, PmError>;

/// The label of the first data volume `vol` of `base`, checked as
/// `__pmLogOpen` checks it and then the temporal index's label (if there
/// is an index): each must be a label of its file, followed by more
/// (`PM_ERR_NODATA` if not), and the index's must be of the same format,
/// pmlogger process and host.
fn check_first_labels(base: &Path, vol: u32, check_features: bool) -> Result<(Label, OpenVolume), PmError> {
    let path = find_file(base, &format!(".{vol}")).ok_or(PmError::from_errno(2))?;
    let vol = i32::try_from(vol).map_err(|_| PmError::PM_ERR_LABEL)?;
    let volume = Volume::open(&path)?;
    let mut head = vec![0; crate::raw::LABEL_HEAD];
    // (an .xz volume whose label does not pass its check has no label to
    // libpcp's xz reader; gzip and bzip2 failing are their own errors)
    let xz = crate::files::compression_of(&path.to_string_lossy()) == Compression::Xz;
    let got = volume.read_at(0, &mut head).map_err(|e| if xz { PmError::PM_ERR_LABEL } else { e })?;
    head.truncate(got);
    let (first, more) = check_label(&head, vol, check_features)?;
    if !more {
        return Err(PmError::PM_ERR_NODATA);
    }
    if let Some(path) = find_file(base, ".index") {
        let (index, more) = check_label(&read_head(&path)?, VOL_INDEX, check_features)?;
        if !more {
            return Err(PmError::PM_ERR_NODATA);
        }
        if index.version != first.version || index.pid != first.pid || index.hostname != first.hostname {
            return Err(PmError::PM_ERR_LABEL);
        }
    }
    Ok((first, (vol, std::sync::Arc::new(volume))))
}

/// Every record of `records`, decoded; with `keep` (the file they are
/// in), large instance-domain records are left in the file. The outer
/// error is `PM_ERR_NODATA` for a file that ends with its label, a
/// label's error as libpcp sees it.
fn decode_meta<R: std::io::Read>(
    records: &mut crate::files::RecordReader<R>,
    version: crate::raw::Version,
    keep: Option<&std::sync::Arc<std::fs::File>>,
) -> Result<MetaRecords, PmError> {
    let mut meta = Vec::new();
    let mut decode = || {
        loop {
            let at = records.offset();
            let payload = match records.next_meta_record()? {
                MetaStep::End => break,
                MetaStep::Skipped => continue,
                MetaStep::Record(payload) => payload,
            };
            meta.push(match keep {
                Some(file) => MetaRecord::decode_deferring(payload, version, file, at)?,
                None => MetaRecord::decode(payload, version)?,
            });
        }
        Ok(())
    };
    // (a descriptor conflict before the record that failed comes first)
    let decoded = decode().map_err(|e| crate::meta::first_desc_conflict(&meta).unwrap_or(e));
    if decoded.is_ok() && meta.is_empty() && records.left() == 0 {
        return Err(PmError::PM_ERR_NODATA);
    }
    Ok(decoded.map(|()| meta))
}

/// `initarchive` refuses an empty name (`PM_ERR_LOGFILE`) before it looks
/// for any file; an empty member of a list is looked for, and missing.
fn refuse_empty(name: &str) -> Result<(), PmError> {
    if name.is_empty() {
        Err(PmError::PM_ERR_LOGFILE)
    } else {
        Ok(())
    }
}

/// An archive's failure as an [`Error`] naming the archive.
fn on_archive(name: &str) -> impl FnOnce(PmError) -> Error + '_ {
    move |code| Error::new(code, Subject::Archive(name.to_owned()))
}

/// The archives of one archive context, as libpcp's `initarchive` sets
/// them up for `pmNewContext(PM_CONTEXT_ARCHIVE, names)`: a list of
/// archive names separated by commas, each directory among them standing
/// for the archives inside it.
///
/// Every archive must open; all must come from the same host as the
/// earliest of those before it (`PM_ERR_LOGHOST`); their descriptors must
/// agree (`PM_ERR_LOGCHANGE*`). They are kept in the order of their start
/// times: two starting at the same time are `PM_ERR_LOGOVERLAP`, unless
/// they have the same name (the second is then ignored). Archives whose
/// time ranges overlap otherwise open; reading across such a boundary is
/// `PM_ERR_LOGOVERLAP` later.
#[derive(Clone, Debug)]
pub struct ArchiveSet {
    /// In the order of their start times.
    members: Vec<Archive>,
    /// The names they were given by, index for index.
    names: Vec<String>,
    /// Indexes into `members` in the order libpcp loads their metadata.
    load_order: Vec<usize>,
}

impl ArchiveSet {
    /// `initarchive`: open the archives `names` lists (see the type),
    /// checking labels' feature bits or not (`PM_CTXFLAG_NO_FEATURE_CHECK`).
    /// The error names the archive of the list that failed (`names`
    /// itself when it lists none).
    #[doc(alias = "pmNewContext")]
    #[doc(alias = "initarchive")]
    pub fn open(names: &str, check_features: bool) -> Result<ArchiveSet, Error> {
        ArchiveSet::open_traced(names, check_features, &Trace::off())
    }

    /// [`ArchiveSet::open`], tracing the opening of each archive into
    /// `trace` as libpcp does under `-Dlog` ([`crate::opentrace`]).
    pub fn open_traced(names: &str, check_features: bool, trace: &Trace) -> Result<ArchiveSet, Error> {
        let list = expand_archive_list(names);
        if list.is_empty() {
            return Err(on_archive(names)(PmError::PM_ERR_LOGFILE));
        }
        // (archive, name, when its metadata was loaded)
        let mut sorted: Vec<(Archive, String, usize)> = Vec::new();
        let mut descs: HashMap<PmId, Desc> = HashMap::new();
        for (seq, name) in list.into_iter().enumerate() {
            let host = sorted.first().map(|(first, _, _)| &first.label().hostname[..]);
            crate::opentrace::trace_log_open_in_set(&name, check_features, host, trace);
            let archive = Archive::open_in_set(&name, true, check_features, host).map_err(on_archive(&name))?;
            for rec in archive.meta() {
                if let MetaRecord::Desc { desc, .. } = rec {
                    match descs.get(&desc.pmid) {
                        Some(old) => desc_conflict(old, desc).map_err(on_archive(&name))?,
                        None => {
                            descs.insert(desc.pmid, *desc);
                        }
                    }
                }
            }
            let start = archive.label().start;
            let mut at = sorted.len();
            let mut duplicate = false;
            for (i, (other, other_name, _)) in sorted.iter().enumerate() {
                let other_start = other.label().start;
                let tdiff = timestamp_sub((start.sec, start.nsec as i32), (other_start.sec, other_start.nsec as i32));
                if tdiff < 0.0 {
                    at = i;
                    break;
                }
                if tdiff == 0.0 {
                    if *other_name != name {
                        return Err(on_archive(&name)(PmError::PM_ERR_LOGOVERLAP));
                    }
                    duplicate = true;
                    break;
                }
            }
            if !duplicate {
                sorted.insert(at, (archive, name, seq));
            }
        }
        let mut by_load: Vec<(usize, usize)> = sorted.iter().enumerate().map(|(i, (_, _, seq))| (*seq, i)).collect();
        by_load.sort_unstable();
        let mut load_order: Vec<usize> = by_load.into_iter().map(|(_, i)| i).collect();
        if sorted.len() > 1 {
            crate::opentrace::trace_log_open(&sorted[0].1, check_features, trace);
            // libpcp ends by reopening the earliest archive, loading its
            // metadata once more
            load_order.push(0);
        }
        let (members, names) = sorted.into_iter().map(|(a, n, _)| (a, n)).unzip();
        Ok(ArchiveSet { members, names, load_order })
    }

    /// A set of one archive.
    pub fn single(archive: Archive) -> ArchiveSet {
        let name = archive.base().to_string_lossy().into_owned();
        ArchiveSet { members: vec![archive], names: vec![name], load_order: vec![0] }
    }

    /// The archives, in the order of their start times (never empty).
    pub fn members(&self) -> &[Archive] {
        &self.members
    }

    /// The names the archives were given by, in the order of
    /// [`ArchiveSet::members`].
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The earliest archive: its label is the context's
    /// (`pmGetArchiveLabel`).
    #[doc(alias = "pmGetArchiveLabel")]
    pub fn first(&self) -> &Archive {
        &self.members[0]
    }

    /// How many archives there are.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Always false: a set holds at least one archive.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Each archive's metadata records, in the order libpcp loads them
    /// into the context (the order the archives were named, duplicates
    /// once, then the earliest archive again when there are several): the
    /// input for [`crate::meta::MetaIndex::build_all`] and
    /// [`crate::labels::LabelIndex::build_all`].
    pub fn meta_in_load_order(&self) -> impl Iterator<Item = &[MetaRecord]> + Clone {
        self.load_order.iter().map(|&i| self.members[i].meta())
    }

    /// [`Archive::retain_meta`] for each archive.
    pub fn retain_meta(&mut self, mut keep: impl FnMut(&MetaRecord) -> bool) {
        for archive in &mut self.members {
            archive.retain_meta(&mut keep);
        }
    }
}

/// libpcp's `expandArchiveList`: the names in a comma-separated list, each
/// directory replaced by the archives in it (each `.meta` file, plain or
/// compressed, names one), in the order the directory lists them. A
/// trailing comma adds nothing.
pub fn expand_archive_list(names: &str) -> Vec<String> {
    let mut parts: Vec<&str> = names.split(',').collect();
    if parts.last() == Some(&"") {
        parts.pop();
    }
    let mut out = Vec::new();
    for part in parts {
        let Ok(dir) = std::fs::read_dir(part) else {
            out.push(part.to_string());
            continue;
        };
        for entry in dir.flatten() {
            let file = entry.file_name();
            let file = file.to_string_lossy();
            if let Some(base) = meta_base(&file) {
                out.push(format!("{part}/{base}"));
            }
        }
    }
    out
}

/// The archive a directory entry's name is the metadata of: `x.meta`,
/// possibly with a compression suffix, names archive `x`.
fn meta_base(file: &str) -> Option<&str> {
    let mut n = file;
    if let Some(dot) = n.rfind('.') {
        // a compression suffix counts only with a '.' before it
        if COMPRESSION_SUFFIXES.contains(&&n[dot..]) && n[..dot].contains('.') {
            n = &n[..dot];
        }
    }
    n.strip_suffix(".meta")
}

/// The order libpcp's `__pmHashCtl` walks keys in after they were added in
/// the given order: bucket by bucket (`key % size`), each chain newest
/// first, with the table grown (and its chains relinked) as libpcp grows
/// it. pmdumplog lists descriptors and instance domains in this order.
/// Returns indexes into `keys`.
pub fn libpcp_hash_order(keys: &[u32]) -> Vec<usize> {
    let mut table = PmHash::new();
    for (i, &key) in keys.iter().enumerate() {
        table.add(key, i);
    }
    table.iter().map(|(_, &i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn multi(name: &str) -> String {
        format!("{}/tests/fixtures/multi/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn lists_expand_as_libpcp_expands_them() {
        assert_eq!(expand_archive_list("a,b,"), ["a", "b"]);
        assert_eq!(expand_archive_list(",a"), ["", "a"]);
        assert_eq!(expand_archive_list("a,,b"), ["a", "", "b"]);
        let dir = multi("dir3");
        // names in list order; a directory's archives in directory order
        let got = expand_archive_list(&format!("x,{dir}"));
        assert_eq!(got[0], "x");
        let mut archives = got[1..].to_vec();
        archives.sort();
        assert_eq!(archives, [format!("{dir}/a"), format!("{dir}/b"), format!("{dir}/c")]);
        // a directory without archives names none
        assert!(expand_archive_list(&format!("{}/tests/replay", env!("CARGO_MANIFEST_DIR"))).is_empty());
    }

    #[test]
    fn an_empty_name_is_a_missing_archive() {
        // not ENOENT: libpcp refuses the name before looking for files
        assert_eq!(Archive::open_checking("", true).unwrap_err(), PmError::PM_ERR_LOGFILE);
        assert_eq!(Archive::open("").unwrap_err(), PmError::PM_ERR_LOGFILE);
    }

    #[test]
    fn metadata_files_name_archives() {
        assert_eq!(meta_base("x.meta"), Some("x"));
        assert_eq!(meta_base("x.y.meta.xz"), Some("x.y"));
        assert_eq!(meta_base("meta.xz"), None);
        assert_eq!(meta_base("x.meta.gz.xz"), None);
        assert_eq!(meta_base("x.0"), None);
        assert_eq!(meta_base("x.index"), None);
    }

    #[test]
    fn sets_keep_archives_in_time_order() {
        let (a, b, c) = (multi("s2a"), multi("s2b"), multi("s2c"));
        let set = ArchiveSet::open(&format!("{c},{a},{b}"), true).unwrap();
        assert_eq!(set.names(), [a.clone(), b, c]);
        assert_eq!(set.first().label().start, Archive::open(&a).unwrap().label().start);
        // metadata as loaded: in the order named, then the first again
        let first_desc = |m: &[MetaRecord]| {
            m.iter().find_map(|r| if let MetaRecord::Desc { desc, .. } = r { Some(desc.pmid) } else { None })
        };
        let loaded: Vec<_> = set.meta_in_load_order().map(first_desc).collect();
        let expect: Vec<_> = [2, 0, 1, 0].iter().map(|&i| first_desc(set.members()[i].meta())).collect();
        assert_eq!(loaded, expect);
        // the same archive named twice counts once
        assert_eq!(ArchiveSet::open(&format!("{a},{a}"), true).unwrap().len(), 1);
        // a directory of archives
        assert_eq!(ArchiveSet::open(&multi("dir3"), true).unwrap().len(), 3);
        // overlapping time ranges open (reading across them fails later)
        assert_eq!(ArchiveSet::open(&format!("{},{}", multi("ov1"), multi("ov2")), true).unwrap().len(), 2);
    }

    #[test]
    fn sets_refuse_what_libpcp_refuses() {
        let a = multi("s2a");
        let err = |names: &str| ArchiveSet::open(names, true).unwrap_err();
        assert_eq!(err(&format!("{a},{}", multi("other"))), PmError::PM_ERR_LOGHOST);
        // another name for the same archive: the same start time
        assert_eq!(err(&format!("{a},{}", multi("./s2a"))), PmError::PM_ERR_LOGOVERLAP);
        assert_eq!(err(&format!("{a},{}", multi("nosuch"))), PmError::from_errno(2));
        assert_eq!(err(""), PmError::PM_ERR_LOGFILE);
        assert_eq!(err(&format!("{}/tests/replay", env!("CARGO_MANIFEST_DIR"))), PmError::PM_ERR_LOGFILE);
    }

    #[test]
    fn hash_order_grows_like_libpcp() {
        // one bucket until 8 nodes: newest first
        assert_eq!(libpcp_hash_order(&[5, 6, 7]), [2, 1, 0]);
        // the 8th add grows the table to 1*2 -> 2 -> 4 -> 6 buckets; the old
        // chain 6,5,...,0 is relinked head first onto the new heads, so
        // bucket 0 becomes [0, 6], then 7 joins bucket 1 in front of 1
        let keys: Vec<u32> = (0..8).collect();
        let order: Vec<u32> = libpcp_hash_order(&keys).into_iter().map(|i| keys[i]).collect();
        assert_eq!(order, [0, 6, 7, 1, 2, 3, 4, 5]);
    }

    /// A copy of the fixture `v2` whose metadata ends with a large record
    /// of instance domain 29.1 (400 instances), one second after the start.
    fn with_large_indom(dir: &Path) -> String {
        let fixture = format!("{}/tests/fixtures/v2", env!("CARGO_MANIFEST_DIR"));
        for suffix in [".meta", ".0", ".index"] {
            std::fs::copy(format!("{fixture}{suffix}"), dir.join(format!("big{suffix}"))).unwrap();
        }
        let start = Archive::open(&fixture).unwrap().label().start;
        let n = 400usize;
        let mut payload = Vec::new();
        for w in [2, start.sec as u32 + 1, 0, (29 << 10) << 12 | 1, n as u32] {
            payload.extend_from_slice(&w.to_be_bytes());
        }
        let names: Vec<String> = (0..n).map(|k| format!("instance number {k:05}")).collect();
        (0..n as u32).for_each(|k| payload.extend_from_slice(&(k + 1000).to_be_bytes()));
        let mut off = 0u32;
        for name in &names {
            payload.extend_from_slice(&off.to_be_bytes());
            off += name.len() as u32 + 1;
        }
        for name in &names {
            payload.extend_from_slice(name.as_bytes());
            payload.push(0);
        }
        let len = (payload.len() as u32 + 8).to_be_bytes();
        let mut meta = std::fs::read(dir.join("big.meta")).unwrap();
        meta.extend_from_slice(&len);
        meta.extend_from_slice(&payload);
        meta.extend_from_slice(&len);
        std::fs::write(dir.join("big.meta"), meta).unwrap();
        dir.join("big").to_string_lossy().into_owned()
    }

    #[test]
    fn large_instance_domains_wait_in_the_file_and_read_as_the_rest() {
        use crate::meta::MetaIndex;
        use crate::raw::Logged;
        let dir = std::env::temp_dir().join(format!("pcp-rs-large-indom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let name = with_large_indom(&dir);
        let (now, later) = (Archive::open(&name).unwrap(), Archive::open_checking(&name, false).unwrap());
        let deferred = |a: &Archive| {
            a.meta().iter().filter(|r| matches!(r, MetaRecord::InDom { instances: Logged::Deferred(_), .. })).count()
        };
        assert_eq!((deferred(&now), deferred(&later)), (0, 1));
        // (comparing reads the deferred record)
        assert_eq!(now.meta(), later.meta());
        let indom = pcp_core::InDom((29 << 10) << 12 | 1);
        let union = |a: &Archive| MetaIndex::build(a.meta()).and_then(|m| m.indom_union(indom));
        let (ids, names) = union(&later).unwrap();
        assert_eq!(ids.len(), 403);
        assert_eq!((ids[0], &names[0][..]), (1000, &b"instance number 00000"[..]));
        assert_eq!(union(&now), Ok((ids, names)));

        // the record changed in the file after opening: an error, not
        // other instances
        let later = Archive::open_checking(&name, false).unwrap();
        let index = MetaIndex::build(later.meta()).unwrap();
        let mut meta = std::fs::read(dir.join("big.meta")).unwrap();
        // the first identifier, after it the other 399, the name offsets,
        // the names and the trailing length word
        let first = meta.len() - 4 - 22 * 400 - 4 * 400 - 4 * 399 - 4;
        meta[first + 3] ^= 1;
        std::fs::write(dir.join("big.meta"), meta).unwrap();
        assert_eq!(index.indom_union(indom).err(), Some(PmError::PM_ERR_LOGREC));
        assert_eq!(index.indom_at(indom, None).err(), Some(PmError::PM_ERR_LOGREC));
        // the other instance domains are as they were
        assert_eq!(index.indom_union(pcp_core::InDom((29 << 10) << 12 | 2)).map(|u| u.0.len()), Ok(9));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
