//! swingdb-share: snapshots shared between processes (the SWING model). A
//! process publishes the state of its database under a name; any process of the
//! same user attaches it, in time and memory that do not grow with its bytes, and
//! gets a database of its own that it may read and change without anyone else
//! seeing the changes, and share onward. Built on `swingdb-storage` only; the SQL
//! layer and the API above name this crate, never the reverse.
//!
//! ```
//! use std::collections::BTreeMap;
//! use swingdb_share::{attach, discard, publish, snapshots, ShareOptions};
//! use swingdb_share::home::Home;
//!
//! let home = Home::runtime()?; // a private directory of this user's
//! let source = home.new_private_database()?; // an empty database, removed when dropped
//! let name = format!("doc-crate-{}", std::process::id());
//! let (info, published) = publish(&home, &source, &BTreeMap::new(), &name, ShareOptions::default())?;
//! assert_eq!((info.name.as_str(), info.pid), (name.as_str(), std::process::id()));
//! assert!(snapshots()?.iter().any(|s| s.name == name));
//! let copy = attach(&name)?; // another process would do the same: a private copy-on-write database
//! assert_ne!(copy.root(), source.root());
//! drop(published); // the snapshot lives as long as this value (unless persisted)
//! discard(&name).ok();
//! # Ok::<(), swingdb_storage::Error>(())
//! ```
//!
//! Nothing is copied: a snapshot is a directory of hard links to the
//! publisher's immutable segment files (see [`snapshot`]), and attaching
//! links them again into a private database of the attacher (see [`home`]),
//! which maps them like any other segments. Both processes map the same
//! pages of the same files; writes make new segments (copy-on-write at
//! segment granularity), and a `numpy(writable=True)` view maps them
//! `MAP_PRIVATE` (copy-on-write by page). Pages are freed by the kernel
//! when the last link and the last mapping of a file are gone.
//!
//! # Which interleavings between processes are possible, and why each is safe
//!
//! Files this module creates: claimed directories (`<home>/snapshots/*`,
//! `<home>/scratch/*`) with their `owner.lock`, a snapshot's `use.lock` and
//! record, hard links, and names (`<runtime home>/names/*`, under `names.lock`).
//!
//! - **A half-built snapshot is never attached.** The name is linked only
//!   after the snapshot directory is complete (manifest published, record
//!   written), so resolving a name finds a whole snapshot or nothing.
//! - **Publisher vs. sweeper.** A snapshot directory is claimed (owner lock
//!   held) before anything is built in it, and its creator keeps the lock
//!   until its name exists (for good if it does not persist it). Sweeps run
//!   under `names.lock`, and a name is made under it too: a sweeper that
//!   finds an unlocked snapshot directory knows whether a name points at it,
//!   and removes it only if none does, or if its publisher (which did not
//!   persist it) is gone. See [`home::Home::claim`] for the race with the
//!   creation of the lock file itself.
//! - **Attacher vs. discard.** Attachers link under `use.lock` shared and
//!   whoever removes a snapshot directory takes it exclusively first, then
//!   renames the directory out of the way before deleting it: an attach
//!   completes before the removal or fails cleanly with an error naming the
//!   snapshot, and under its name a snapshot directory is always whole (a
//!   remover killed halfway leaves a renamed directory the next sweep deletes). After linking, the attacher needs nothing of the
//!   snapshot directory (its links keep the files).
//! - **Publisher's database vs. snapshot.** Sharing pins the version it links
//!   (or links the files of the open transaction, which only this process
//!   deletes, after the links exist): the publisher's garbage collection
//!   removes its own names of files, never the snapshot's links.
//! - **Replace vs. attach.** Renaming a new link over a name is atomic: an
//!   attacher resolves the old snapshot or the new one; the old one is
//!   removed only after the rename, under `use.lock` exclusive.
//! - **Dead processes.** Locks die with their process. A private database
//!   whose owner lock is free, and a snapshot whose publisher's lock is free
//!   (unless persisted and named), is removed by the next share, attach or
//!   listing; directories whose creator died before making the lock file
//!   are recognised by the dead pid in their name.
//!
//! # What a sweep removes: only what is proven dead
//!
//! A sweep removes a snapshot directory only when what it read proves that
//! nobody can want it ([`Fate::Dead`]); anything it could not read is kept
//! and reported ([`Fate::Damaged`]: `snapshots()` lists it as damaged,
//! `attach` raises `CorruptionError` naming the file) until an explicit
//! `discard`. A failed read is never taken for an answer: with no free file
//! descriptor, a damaged record or an unreadable name the sweep keeps
//! everything it cannot decide about.
//! - *Named, owner lock free, record readable and not persisted*: its
//!   publisher is gone and said it should end with it. Removed.
//! - *Named, its directory absent* (`ENOENT`, not any failed stat): a
//!   dangling name. The name is removed.
//! - *Unnamed* (the complete list of names, read under `names.lock`, has no
//!   entry for it), *owner lock free*, and either no record at all (records
//!   are renamed into place whole, after everything else and before the name,
//!   so none means an interrupted build) or a readable record (it was
//!   discarded or replaced, and its remover died). Removed. An unreadable
//!   record is kept.
//! - Owner lock held, or its file not openable: alive. Kept.
//! - Renamed into the trash (`.trash-*`): a remover took it, under
//!   `use.lock` exclusive, and died deleting it. Emptied.
//!
//! Private databases (`scratch/`) are removed when their owner lock is
//! free (taken by the sweeper, so nobody claims it meanwhile) or when their
//! creator's pid is gone (`ESRCH`) before it made the lock file: both are
//! proofs, and an attached database holds only links (the snapshot keeps
//! its own).

#![warn(missing_docs)]

pub mod home;
pub mod names;
pub mod snapshot;

use home::{probe, Home, Probe};
use names::{validate, Names};
use snapshot::Record;
use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use swingdb_storage::failpoint;
use swingdb_storage::{DbDir, TableMeta};
use swingdb_storage::{Error, ErrorKind, Result};

/// How to share (`swingdb::Connection::share` takes it; the crate docs show it at work).
#[derive(Debug, Clone, Copy, Default)]
pub struct ShareOptions {
    /// Keep the snapshot after the publisher closes or exits, until it is
    /// discarded (or the machine restarts: names live in the runtime home).
    pub persist: bool,
    /// Point the name at this snapshot even if it names another one.
    pub replace: bool,
}

/// A snapshot as [`snapshots`] lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotInfo {
    /// Its name.
    pub name: String,
    /// Its directory.
    pub path: PathBuf,
    /// Whether it outlives its publisher.
    pub persist: bool,
    /// The publishing process.
    pub pid: u32,
    /// The database it was taken from.
    pub source: String,
    /// Its tables.
    pub tables: Vec<String>,
    /// Rows in all tables.
    pub rows: u64,
    /// Bytes of its segment files.
    pub bytes: u64,
    /// When it was published (seconds since the Unix epoch).
    pub created: f64,
    /// Live databases attached from it.
    pub attached: usize,
    /// Why it cannot be attached (its record is damaged or unreadable), or
    /// `None`. A damaged snapshot is kept until it is discarded.
    pub damaged: Option<String>,
}

impl SnapshotInfo {
    fn new(record: Record, path: PathBuf, attached: usize) -> Self {
        Self {
            name: record.name,
            path,
            persist: record.persist,
            pid: record.pid,
            source: record.source,
            tables: record.tables,
            rows: record.rows,
            bytes: record.bytes,
            created: record.created_us as f64 / 1e6,
            attached,
            damaged: None,
        }
    }

    /// A named snapshot whose record could not be read (`why`).
    fn damaged(name: String, path: PathBuf, why: &Error) -> Self {
        Self {
            name,
            path,
            persist: false,
            pid: 0,
            source: String::new(),
            tables: Vec::new(),
            rows: 0,
            bytes: 0,
            created: 0.0,
            attached: 0,
            damaged: Some(why.message().to_string()),
        }
    }
}

/// A published snapshot that lives as long as this value (held by the
/// publishing database): dropping it removes the name and the directory.
#[derive(Debug)]
pub struct Published {
    names: Names,
    name: String,
    dir: PathBuf,
    _owner: File,
}

impl Published {
    /// Whether the name still stands for this snapshot (it was not discarded or replaced).
    pub fn is_current(&self) -> bool {
        self.names.resolve(&self.name).is_ok_and(|t| t.as_ref() == Some(&self.dir))
    }
}

impl Drop for Published {
    fn drop(&mut self) {
        if let Ok(guard) = self.names.lock() {
            self.names.remove_if(&guard, &self.name, &self.dir);
        }
        snapshot::remove(&self.dir);
    }
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What a sweeper may conclude about a named snapshot directory (see the
/// module docs: only what is proven dead is removed).
#[derive(Debug)]
enum Fate {
    /// Its publisher is alive, or it is persisted.
    Live,
    /// Proven unwanted: its directory is gone, or its publisher is gone and
    /// its readable record says it did not persist it.
    Dead,
    /// Its record could not be read: kept, reported, removed only by discard.
    Damaged(Error),
}

/// The fate of the snapshot directory `dir` that a name points at.
fn fate(dir: &Path) -> Fate {
    match std::fs::symlink_metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Fate::Dead,
        Err(e) => return Fate::Damaged(Error::io(format!("inspecting snapshot directory {}", dir.display()), e)),
    }
    match probe(dir) {
        Probe::Held => Fate::Live,
        Probe::Abandoned(_lock) => match Record::read(dir) {
            Ok(record) if record.persist => Fate::Live,
            Ok(_) => Fate::Dead,
            Err(e) => Fate::Damaged(e),
        },
    }
}

/// Publishes `tables` (the state a connection sees of `source`, whose home is
/// `home`) as snapshot `name`. Returns what was published and, unless it is
/// persisted, the value whose lifetime is the snapshot's.
pub fn publish(
    home: &Home,
    source: &DbDir,
    tables: &BTreeMap<String, Arc<TableMeta>>,
    name: &str,
    options: ShareOptions,
) -> Result<(SnapshotInfo, Option<Published>)> {
    validate(name)?;
    let runtime = Home::runtime()?;
    sweep(&runtime, Some(home));
    let names = Names::of(&runtime)?;
    let record = Record::new(name, options.persist, source.root(), tables);
    let claimed = snapshot::build(home, source, tables, &record)?;
    let dir = canonical(&claimed.path);
    let named = (|| {
        failpoint::hit("share.before_name")?;
        let guard = names.lock()?;
        if let Some(old) = names.resolve(name)?.filter(|old| !options.replace && !matches!(fate(old), Fate::Dead)) {
            let who = match Record::read(&old) {
                Ok(r) if r.persist => "persisted".to_string(),
                Ok(r) => format!("published by process {}", r.pid),
                Err(_) => format!("damaged, at {}", old.display()),
            };
            return Err(Error::operational(format!(
                "a snapshot named '{name}' already exists ({who}); discard it first (swingdb.discard('{name}')) \
                 or share with replace=True"
            )));
        }
        names.point(&guard, name, &dir)
    })();
    let old = match named {
        Ok(old) => old,
        Err(e) => {
            snapshot::remove(&dir);
            return Err(e);
        }
    };
    if let Some(old) = old.filter(|o| *o != dir) {
        snapshot::remove(&old);
    }
    let info = SnapshotInfo::new(record, dir.clone(), 0);
    if options.persist {
        return Ok((info, None));
    }
    Ok((info, Some(Published { names, name: name.to_string(), dir, _owner: claimed.lock })))
}

/// Attaches snapshot `name`: a new private database (removed when the
/// returned handle is dropped) holding what the snapshot holds.
pub fn attach(name: &str) -> Result<DbDir> {
    validate(name)?;
    let runtime = Home::runtime()?;
    sweep_unless_recent(&runtime);
    let names = Names::of(&runtime)?;
    let listing = "swingdb.snapshots() lists the snapshots there are";
    let target = names.resolve(name)?.ok_or_else(|| {
        Error::operational(format!("there is no snapshot named '{name}' (discarded, or never shared); {listing}"))
    })?;
    if std::fs::symlink_metadata(&target).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Err(Error::operational(format!(
            "snapshot '{name}' is gone: its directory {} was removed (with the database it was taken from?); {listing}",
            target.display()
        )));
    }
    let record = match Record::read(&target) {
        Ok(record) => record,
        Err(_) if !target.is_dir() => {
            return Err(Error::operational(format!(
                "snapshot '{name}' was discarded while it was being attached; nothing was attached"
            )))
        }
        Err(e) => return Err(e),
    };
    if matches!(fate(&target), Fate::Dead) {
        return Err(Error::operational(format!(
            "snapshot '{name}' ended with its publisher (process {}, which has exited); share it with persist=True \
             to keep it after its publisher ends",
            record.pid
        )));
    }
    let home = Home::owning(&target);
    if home != runtime {
        home.sweep_scratch();
    }
    let dir = home.new_private_database()?;
    snapshot::attach_into(name, &target, &dir)?;
    Ok(dir)
}

/// The snapshots of this user, by name: the live ones, and the damaged
/// ones (with [`SnapshotInfo::damaged`] saying why) until they are discarded.
/// An error if a name or record cannot be read for another reason than
/// damage (no free file descriptor, ...): never a shorter list.
pub fn snapshots() -> Result<Vec<SnapshotInfo>> {
    let runtime = Home::runtime()?;
    sweep(&runtime, None);
    let names = Names::of(&runtime)?;
    let mut out = Vec::new();
    let damaged = |name, target, why: Error| match why.kind() {
        ErrorKind::Corruption => Ok(SnapshotInfo::damaged(name, target, &why)),
        _ => Err(why),
    };
    for (name, target) in names.list()? {
        match fate(&target) {
            Fate::Dead => continue,
            Fate::Damaged(why) => out.push(damaged(name, target, why)?),
            Fate::Live => match Record::read(&target) {
                Ok(record) => {
                    let attached = Home::owning(&target).attached_from(&target);
                    out.push(SnapshotInfo::new(record, target, attached));
                }
                Err(why) => out.push(damaged(name, target, why)?),
            },
        }
    }
    Ok(out)
}

/// Removes snapshot `name`. Databases attached from it keep what they have.
pub fn discard(name: &str) -> Result<()> {
    validate(name)?;
    let runtime = Home::runtime()?;
    let names = Names::of(&runtime)?;
    let guard = names.lock()?;
    let target = names.resolve(name)?.ok_or_else(|| {
        Error::operational(format!(
            "there is no snapshot named '{name}'; swingdb.snapshots() lists the snapshots there are"
        ))
    })?;
    names.remove_if(&guard, name, &target);
    drop(guard);
    snapshot::remove(&target);
    Ok(())
}

/// Least time between two sweeps of one home that [`attach`] makes in one
/// process. A process attaching snapshot after snapshot (one per task, say)
/// otherwise listed and probed every private database and snapshot of the
/// user each time, to find what a crash left there in the moments since.
/// Nothing depends on a sweep having run: a dead publisher's snapshot is
/// refused by its fate, not by its absence.
const ATTACH_SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// [`sweep`] of `runtime`, unless this process swept it by [`attach`] less
/// than [`ATTACH_SWEEP_INTERVAL`] ago.
fn sweep_unless_recent(runtime: &Home) {
    static SWEPT: parking_lot::Mutex<Vec<(PathBuf, std::time::Instant)>> = parking_lot::Mutex::new(Vec::new());
    {
        let mut swept = SWEPT.lock();
        match swept.iter_mut().find(|(root, _)| root == runtime.root()) {
            Some((_, at)) if at.elapsed() < ATTACH_SWEEP_INTERVAL => return,
            Some((_, at)) => *at = std::time::Instant::now(),
            None => swept.push((runtime.root().to_path_buf(), std::time::Instant::now())),
        }
    }
    sweep(runtime, None);
}

/// Removes what dead processes left in `runtime` (and in `other`, a
/// database's home): private databases, snapshots of publishers that are
/// gone, snapshots no name points at, names of removed snapshots; only what
/// is proven dead (see the module docs). Skipped if another process is
/// changing names right now, or if the names cannot all be read.
pub fn sweep(runtime: &Home, other: Option<&Home>) {
    runtime.sweep_scratch();
    if let Some(home) = other.filter(|h| *h != runtime) {
        home.sweep_scratch();
    }
    let Ok(names) = Names::of(runtime) else { return };
    let Some(guard) = names.try_lock() else { return };
    names.sweep_temporary(&guard);
    // Without every name, no directory can be proven unnamed.
    let Ok(listed) = names.list() else { return };
    let mut named = HashSet::new();
    for (name, target) in &listed {
        let dead = matches!(fate(target), Fate::Dead);
        if dead && failpoint::hit("sweep.before_remove").is_ok() && names.remove_if(&guard, name, target) {
            snapshot::remove(target);
        } else {
            named.insert(canonical(target));
        }
    }
    for home in std::iter::once(runtime).chain(other) {
        snapshot::empty_trash(home);
        for dir in snapshot::dirs(home) {
            let Ok(dir) = std::fs::canonicalize(&dir) else { continue };
            if named.contains(&dir) {
                continue;
            }
            // Unnamed: being built (held), or left by a crash, a replace or a
            // discard. Kept if its record exists but cannot be read, or names
            // it under a name that (read again) points at it.
            if let Probe::Abandoned(_lock) = probe(&dir) {
                let proven = match Record::read_found(&dir) {
                    Ok(None) => true,
                    Ok(Some(record)) => {
                        names.resolve(&record.name).is_ok_and(|t| t.map(|t| canonical(&t)).as_ref() != Some(&dir))
                    }
                    Err(_) => false,
                };
                if proven && failpoint::hit("sweep.before_remove").is_ok() {
                    snapshot::remove(&dir);
                }
            }
        }
    }
}
