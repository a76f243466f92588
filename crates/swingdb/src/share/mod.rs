//! Snapshots shared between processes (the SWING model): a process publishes
//! the state of its database under a name; any process of the same user
//! attaches it, in time and memory that do not grow with its bytes, and gets a
//! database of its own that it may read and change without anyone else seeing
//! the changes, and share onward.
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

pub mod home;
pub mod names;
pub mod snapshot;

use crate::error::{Error, Result};
use crate::storage::failpoint;
use crate::storage::{DbDir, TableMeta};
use home::{probe, Home, Probe};
use names::{validate, Names};
use snapshot::Record;
use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How to share.
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
        self.names.resolve(&self.name).is_some_and(|t| t == self.dir)
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

/// Whether the snapshot directory `dir` is still wanted: persisted, or its
/// publisher (or creator) alive.
fn is_live(dir: &Path) -> bool {
    match probe(dir) {
        Probe::Held => true,
        Probe::Abandoned(_lock) => Record::read(dir).is_ok_and(|r| r.persist),
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
        if let Some(old) = names.resolve(name).filter(|old| !options.replace && is_live(old)) {
            let who = match Record::read(&old) {
                Ok(r) if r.persist => "persisted".to_string(),
                Ok(r) => format!("published by process {}", r.pid),
                Err(_) => format!("at {}", old.display()),
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
    sweep(&runtime, None);
    let names = Names::of(&runtime)?;
    let listing = "swingdb.snapshots() lists the snapshots there are";
    let target = names
        .resolve(name)
        .ok_or_else(|| Error::operational(format!("there is no snapshot named '{name}' (discarded, or never shared); {listing}")))?;
    if !target.is_dir() {
        return Err(Error::operational(format!(
            "snapshot '{name}' is gone: its directory {} was removed (with the database it was taken from?); {listing}",
            target.display()
        )));
    }
    let record = match Record::read(&target) {
        Ok(record) => record,
        Err(_) if !target.is_dir() => {
            return Err(Error::operational(format!("snapshot '{name}' was discarded while it was being attached; nothing was attached")))
        }
        Err(e) => return Err(e),
    };
    if !is_live(&target) {
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

/// The live snapshots of this user, by name.
pub fn snapshots() -> Result<Vec<SnapshotInfo>> {
    let runtime = Home::runtime()?;
    sweep(&runtime, None);
    let names = Names::of(&runtime)?;
    let mut out = Vec::new();
    for (_, target) in names.list() {
        let Ok(record) = Record::read(&target) else { continue };
        if !is_live(&target) {
            continue;
        }
        let attached = Home::owning(&target).attached_from(&target);
        out.push(SnapshotInfo::new(record, target, attached));
    }
    Ok(out)
}

/// Removes snapshot `name`. Databases attached from it keep what they have.
pub fn discard(name: &str) -> Result<()> {
    validate(name)?;
    let runtime = Home::runtime()?;
    let names = Names::of(&runtime)?;
    let guard = names.lock()?;
    let target = names.resolve(name).ok_or_else(|| {
        Error::operational(format!("there is no snapshot named '{name}'; swingdb.snapshots() lists the snapshots there are"))
    })?;
    names.remove_if(&guard, name, &target);
    drop(guard);
    snapshot::remove(&target);
    Ok(())
}

/// Removes what dead processes left in `runtime` (and in `other`, a
/// database's home): private databases, snapshots of publishers that are
/// gone, snapshots no name points at, names of removed snapshots. Skipped
/// if another process is changing names right now.
pub fn sweep(runtime: &Home, other: Option<&Home>) {
    runtime.sweep_scratch();
    if let Some(home) = other.filter(|h| *h != runtime) {
        home.sweep_scratch();
    }
    let Ok(names) = Names::of(runtime) else { return };
    let Some(guard) = names.try_lock() else { return };
    names.sweep_temporary(&guard);
    let listed = names.list();
    let mut named = HashSet::new();
    for (name, target) in &listed {
        let dead = !target.is_dir() || !is_live(target);
        if dead && names.remove_if(&guard, name, target) {
            snapshot::remove(target);
        } else {
            named.insert(canonical(target));
        }
    }
    for home in std::iter::once(runtime).chain(other) {
        snapshot::empty_trash(home);
        for dir in snapshot::dirs(home) {
            let dir = canonical(&dir);
            if named.contains(&dir) {
                continue;
            }
            // Unnamed: being built (held), or left by a crash, a replace or a discard.
            if let Probe::Abandoned(_lock) = probe(&dir) {
                if failpoint::hit("sweep.before_remove").is_ok() {
                    snapshot::remove(&dir);
                }
            }
        }
    }
}
