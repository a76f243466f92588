//! The per-database cache of mapped segments: each segment file is mapped and
//! verified once per handle and shared by every query that reads it.

use super::dir::DbDir;
use super::manifest::{SegmentMeta, TableMeta};
use super::segment::MappedSegment;
use crate::error::Result;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// Maps segments on first use and keeps them mapped while the current snapshot
/// references them.
#[derive(Debug)]
pub struct SegmentStore {
    dir: Arc<DbDir>,
    verify: bool,
    mapped: Mutex<HashMap<String, Arc<MappedSegment>>>,
}

impl SegmentStore {
    /// A store over `dir`; with `verify`, each segment's CRC-32 is checked the
    /// first time this handle maps it.
    pub fn new(dir: Arc<DbDir>, verify: bool) -> Self {
        Self { dir, verify, mapped: Mutex::new(HashMap::new()) }
    }

    /// The database directory.
    pub fn dir(&self) -> &Arc<DbDir> {
        &self.dir
    }

    /// The mapped segment `meta` of `table`.
    pub fn map(&self, table: &TableMeta, meta: &SegmentMeta) -> Result<Arc<MappedSegment>> {
        if let Some(seg) = self.mapped.lock().unwrap().get(&meta.file) {
            return Ok(seg.clone());
        }
        let seg = Arc::new(MappedSegment::open(&self.dir.segment_path(&meta.file), meta, &table.schema, self.verify)?);
        self.mapped.lock().unwrap().insert(meta.file.clone(), seg.clone());
        Ok(seg)
    }

    /// Forgets mappings of files not in `live` (queries that still use them keep
    /// their own references, so nothing they hold is unmapped).
    pub fn retain(&self, live: &HashSet<&str>) {
        self.mapped.lock().unwrap().retain(|file, _| live.contains(file.as_str()));
    }
}
