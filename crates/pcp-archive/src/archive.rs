//! An archive opened by name: its files, label, metadata and extent.

use crate::files::{base_name, find_file, open_records, volumes};
use crate::raw::{decode_result, IndexEntry, Label, MetaRecord};
use pcp_core::hash::PmHash;
use pcp_core::{PmError, Timestamp};
use std::path::{Path, PathBuf};

/// An archive on disk, checked the way `pmNewContext(PM_CONTEXT_ARCHIVE)`
/// checks it: a label on every file and metadata that decodes.
#[derive(Clone, Debug)]
pub struct Archive {
    base: PathBuf,
    label: Label,
    volumes: Vec<u32>,
    /// Shared: a replay holds a copy of the archive. (A `Vec` in the `Arc`:
    /// making an `Arc<[T]>` would copy the records.)
    meta: std::sync::Arc<Vec<MetaRecord>>,
}

impl Archive {
    /// Open the archive `name` names: its base name, or any of its files.
    pub fn open(name: &str) -> Result<Archive, PmError> {
        let base = if find_file(Path::new(name), ".meta").is_some() {
            PathBuf::from(name)
        } else {
            PathBuf::from(base_name(name))
        };
        let meta_path = find_file(&base, ".meta").ok_or(PmError::from_errno(2))?;
        let (label, mut records) = open_records(&meta_path)?;
        let mut meta = Vec::new();
        while let Some(payload) = records.next_record()? {
            meta.push(MetaRecord::decode(payload, label.version)?);
        }
        let volumes = volumes(&base).map_err(|e| PmError::from_errno(e.raw_os_error().unwrap_or(2)))?;
        if volumes.is_empty() {
            return Err(PmError::PM_ERR_LOGFILE);
        }
        Ok(Archive { base, label, volumes, meta: std::sync::Arc::new(meta) })
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

    /// `pmGetArchiveEnd`: the time of the last result that decodes, in the
    /// last volume holding one; records after damage are not reached.
    #[doc(alias = "pmGetArchiveEnd")]
    pub fn end(&self) -> Result<Timestamp, PmError> {
        for &vol in self.volumes.iter().rev() {
            let Some(path) = find_file(&self.base, &format!(".{vol}")) else { continue };
            let Ok((label, mut records)) = open_records(&path) else { continue };
            let mut last = None;
            while let Ok(Some(payload)) = records.next_record() {
                match decode_result(payload, label.version) {
                    Ok(r) => last = Some(r.timestamp),
                    Err(_) => break,
                }
            }
            if let Some(t) = last {
                return Ok(t);
            }
        }
        Err(PmError::PM_ERR_LOGREC)
    }
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
}
