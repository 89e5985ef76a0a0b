//! An archive opened by name: its files, label, metadata and extent.

use crate::files::{base_name, find_file, open_records, volumes};
use crate::raw::{decode_result, IndexEntry, Label, MetaRecord};
use pcp_core::{PmError, Timestamp};
use std::path::{Path, PathBuf};

/// An archive on disk, checked the way `pmNewContext(PM_CONTEXT_ARCHIVE)`
/// checks it: a label on every file and metadata that decodes.
#[derive(Debug)]
pub struct Archive {
    base: PathBuf,
    label: Label,
    volumes: Vec<u32>,
    meta: Vec<MetaRecord>,
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
        Ok(Archive { base, label, volumes, meta })
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
