//! One snapshot directory: a small swingdb database of its own whose one
//! manifest (version 1) names segment files that are hard links to the
//! publisher's segments, plus a record of who published it and when.
//!
//! ```text
//! <home>/snapshots/<pid>-<id>/
//!   swingdb.json, manifests/, segments/, leases/   a database (one version, never written again)
//!   snapshot.json   the record: name, persist, publisher pid, created, tables, rows, bytes
//!                   (a line with its CRC-32, then the JSON)
//!   owner.lock      flock()ed exclusively by its creator while it builds the snapshot, and for
//!                   as long as the snapshot lives by a publisher that did not persist it
//!   use.lock        flock()ed shared by each attacher while it links the segments, and
//!                   exclusively by whoever removes the snapshot
//! ```
//!
//! Links, not copies: a segment file is never written after it is published,
//! so a link is as good as a copy, costs no byte, and keeps the file's pages
//! alive after the publisher deletes its own name for it (a later commit, its
//! garbage collection, closing an in-memory database, a SIGKILL). An attacher
//! links the files again into a private database of its own; from then on it
//! needs nothing of the snapshot directory, which may be discarded at once.

use super::home::{Claimed, Home, SNAPSHOTS};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use swingdb_storage::dir::files::{create_private_file, flock, io_err, random_id, still_named};
use swingdb_storage::{failpoint, DbDir, Manifest, SegmentMeta, TableMeta};
use swingdb_storage::{Error, ErrorKind, Result};

/// The record file of a snapshot directory.
pub const RECORD: &str = "snapshot.json";
/// The lock file attachers share and removers take exclusively.
pub const USE_LOCK: &str = "use.lock";

/// What a snapshot directory says about itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// The name it was published under.
    pub name: String,
    /// Whether it outlives its publisher.
    pub persist: bool,
    /// The publishing process.
    pub pid: u32,
    /// When it was published (microseconds since the Unix epoch).
    pub created_us: u64,
    /// The database it was taken from.
    pub source: String,
    /// Its tables.
    pub tables: Vec<String>,
    /// Rows in all its tables.
    pub rows: u64,
    /// Bytes of its segment files.
    pub bytes: u64,
}

impl Record {
    /// The record of a snapshot of `tables`.
    pub fn new(name: &str, persist: bool, source: &Path, tables: &BTreeMap<String, Arc<TableMeta>>) -> Self {
        let segments = || tables.values().flat_map(|t| t.segments.iter());
        Self {
            name: name.to_string(),
            persist,
            pid: std::process::id(),
            created_us: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_micros() as u64,
            source: source.display().to_string(),
            tables: tables.keys().cloned().collect(),
            rows: segments().map(SegmentMeta::live_rows).sum(),
            bytes: segments().map(|s| s.bytes).sum(),
        }
    }

    /// Writes the record: a line with the CRC-32 of the JSON that follows it
    /// (of its bytes as written: a float need not read back to the same text).
    /// Written under a temporary name and renamed into place, so that a
    /// record is whole or absent: a sweeper that finds none knows the build
    /// was interrupted, and one it cannot read is damaged, never half-written.
    fn write(&self, dir: &Path) -> Result<()> {
        let body = serde_json::to_vec(self).expect("a record serializes");
        let tmp = dir.join(format!(".{RECORD}.tmp"));
        let mut f = create_private_file(&tmp).map_err(io_err("creating", &tmp))?;
        let text = [format!("{:08x}\n", crc32fast::hash(&body)).into_bytes(), body].concat();
        f.write_all(&text).map_err(io_err("writing", &tmp))?;
        f.sync_all().map_err(io_err("syncing", &tmp))?;
        let path = dir.join(RECORD);
        fs::rename(&tmp, &path).map_err(io_err("naming", &path))
    }

    /// Reads and checks the record of the snapshot directory `dir`.
    pub fn read(dir: &Path) -> Result<Self> {
        Self::read_found(dir)?.ok_or_else(|| {
            let path = dir.join(RECORD);
            Error::corruption(format!(
                "snapshot record {} is missing; swingdb.discard() the snapshot to remove it",
                path.display()
            ))
        })
    }

    /// Reads and checks the record of `dir`; `None` if it has none (its
    /// build was interrupted before the record was renamed into place).
    /// Every other failure, damage or a read that could not be made (no
    /// free descriptor), is an error: nothing is concluded from it.
    pub fn read_found(dir: &Path) -> Result<Option<Self>> {
        let path = dir.join(RECORD);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            // Short of a resource now (descriptors, memory): says nothing of the record.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EMFILE | libc::ENFILE | libc::ENOMEM | libc::EAGAIN | libc::EINTR)
                ) =>
            {
                return Err(Error::io(format!("reading snapshot record {}", path.display()), e))
            }
            Err(e) => {
                return Err(Error::corruption(format!(
                    "snapshot record {} cannot be read ({e}); swingdb.discard() the snapshot to remove it",
                    path.display()
                )))
            }
        };
        let damaged = || {
            Error::corruption(format!(
                "snapshot record {} is damaged; swingdb.discard() the snapshot to remove it",
                path.display()
            ))
        };
        let (crc, body) = bytes.split_at(bytes.iter().position(|&b| b == b'\n').ok_or_else(damaged)?);
        let crc = std::str::from_utf8(crc).ok().and_then(|c| u32::from_str_radix(c, 16).ok()).ok_or_else(damaged)?;
        let body = &body[1..];
        if crc32fast::hash(body) != crc {
            return Err(damaged());
        }
        serde_json::from_slice(body).map(Some).map_err(|_| damaged())
    }
}

/// Builds a complete snapshot directory of `tables` (segments of `source`)
/// in `home`. The caller names it and keeps (or, to persist it, drops) the
/// returned claim. On any error nothing of it is left behind.
pub fn build(
    home: &Home,
    source: &DbDir,
    tables: &BTreeMap<String, Arc<TableMeta>>,
    record: &Record,
) -> Result<Claimed> {
    let claimed = home.claim(SNAPSHOTS)?;
    let built = (|| {
        let use_lock = claimed.path.join(USE_LOCK);
        create_private_file(&use_lock).map_err(io_err("creating", &use_lock))?;
        let dir = DbDir::create_in(&claimed.path)?;
        link_segments(source, &dir, tables)?;
        publish_first(&dir, tables)?;
        record.write(&claimed.path)
    })();
    match built {
        Ok(()) => Ok(claimed),
        Err(e) => {
            let _ = fs::remove_dir_all(&claimed.path);
            Err(e)
        }
    }
}

/// Links the segments of the snapshot directory `snapshot` into the new
/// private database `target` and publishes them there as version 1.
///
/// Holds `use.lock` shared while linking: a snapshot removed meanwhile is
/// either removed entirely before (the lock file we locked is gone: an
/// error naming the snapshot) or only after every link exists.
pub fn attach_into(name: &str, snapshot: &Path, target: &DbDir) -> Result<()> {
    let gone = || {
        Error::operational(format!("snapshot '{name}' was discarded while it was being attached; nothing was attached"))
    };
    let lock_path = snapshot.join(USE_LOCK);
    let lock = match File::open(&lock_path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(gone()),
        Err(e) => return Err(Error::io(format!("opening {}", lock_path.display()), e)),
    };
    flock(&lock, libc::LOCK_SH).map_err(io_err("locking", &lock_path))?;
    if !still_named(&lock, &lock_path) {
        return Err(gone());
    }
    failpoint::hit("attach.after_lock")?;
    let source = DbDir::open(snapshot, false, true)?;
    let manifest = source.read_manifest(source.latest_version()?)?;
    link_segments(&source, target, &manifest.tables)?;
    drop(lock);
    failpoint::hit("attach.before_publish")?;
    publish_first(target, &manifest.tables)?;
    let origin = target.root().join(super::home::ORIGIN);
    let mut f = create_private_file(&origin).map_err(io_err("creating", &origin))?;
    f.write_all(snapshot.as_os_str().as_encoded_bytes()).map_err(io_err("writing", &origin))?;
    Ok(())
}

/// Prefix of snapshot directories on their way out (see [`remove`]).
pub const TRASH_PREFIX: &str = ".trash-";

/// Removes the snapshot directory `dir` once no attacher is linking from it.
///
/// Under `use.lock` exclusive the directory is first renamed out of the way
/// (atomically), then deleted: under its own name a snapshot directory is
/// always whole, also when a remover dies halfway through deleting it. An
/// attacher that locked before us finishes linking first; one that locks
/// after us finds the lock file no longer under the snapshot's name.
pub fn remove(dir: &Path) {
    let lock = File::open(dir.join(USE_LOCK)).ok();
    if let Some(lock) = &lock {
        let _ = flock(lock, libc::LOCK_EX);
    }
    let trash = dir.with_file_name(format!("{TRASH_PREFIX}{}-{}", std::process::id(), random_id()));
    let doomed = if fs::rename(dir, &trash).is_ok() { trash } else { dir.to_path_buf() };
    drop(lock);
    let _ = fs::remove_dir_all(doomed);
}

/// Hard-links every segment file of `tables` from `source` into `target`
/// (inline segments go along in the manifest), and copies their sequences'
/// counters, which change: the copy goes on from the value it had now,
/// apart from the source's (see `storage::sequence`).
fn link_segments(source: &DbDir, target: &DbDir, tables: &BTreeMap<String, Arc<TableMeta>>) -> Result<()> {
    for table in tables.values() {
        if let Some(sequence) = table.as_sequence() {
            sequence.copy_counter(&source.segment_path(&sequence.file), &target.segment_path(&sequence.file))?;
        }
        for segment in table.segments.iter().filter(|s| s.inline.is_none()) {
            let from = source.segment_path(&segment.file);
            let to = target.segment_path(&segment.file);
            fs::hard_link(&from, &to).map_err(|e| match e.raw_os_error() {
                Some(libc::ENOENT) => Error::corruption(format!("segment {} is missing", from.display())),
                Some(libc::EXDEV) => Error::operational(format!(
                    "cannot link {} into {}: they are on different filesystems",
                    from.display(),
                    target.root().display()
                )),
                Some(libc::ENOSPC | libc::EDQUOT) => Error::new(
                    ErrorKind::Operational,
                    format!(
                        "no space left on the device of {} (linking {}): free some space",
                        target.root().display(),
                        from.display()
                    ),
                ),
                _ => Error::io(format!("linking {} to {}", from.display(), to.display()), e),
            })?;
        }
    }
    target.sync_segments()
}

/// Publishes `tables` as version 1 of the new database `dir`. Every table is
/// marked as last changed in version 1: the versions it carried come from
/// another database and would confuse conflict detection here.
fn publish_first(dir: &DbDir, tables: &BTreeMap<String, Arc<TableMeta>>) -> Result<()> {
    let tables = tables
        .iter()
        .map(|(name, t)| (name.clone(), Arc::new(TableMeta { modified: 1, ..t.as_ref().clone() })))
        .collect();
    let manifest = Manifest { version: 1, tables };
    let lock = dir.lock_commits()?;
    if !dir.publish(&manifest, &lock)? {
        return Err(Error::internal(format!("{} already had a version 1", dir.root().display())));
    }
    Ok(())
}

/// The snapshot directories of `home`.
pub fn dirs(home: &Home) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(home.root().join(SNAPSHOTS)) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect()
}

/// Deletes what removals that died halfway left in `home` (renamed out of
/// the way, so nobody else uses it).
pub fn empty_trash(home: &Home) {
    let Ok(entries) = fs::read_dir(home.root().join(SNAPSHOTS)) else { return };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TRASH_PREFIX) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_record_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let record = Record::new("r", true, tmp.path(), &BTreeMap::new());
        record.write(tmp.path()).unwrap();
        assert_eq!(Record::read(tmp.path()).unwrap(), record);
        let path = tmp.path().join(RECORD);
        let mut bytes = fs::read(&path).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 1;
        fs::write(&path, bytes).unwrap();
        assert_eq!(Record::read(tmp.path()).unwrap_err().kind(), ErrorKind::Corruption);
    }
}
