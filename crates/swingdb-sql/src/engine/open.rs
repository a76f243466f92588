//! Opening a database: [`OpenOptions`] and the constructors of [`DbCore`]
//! for a directory, a private in-memory database and an attached snapshot.

use crate::core::DbCore;
use std::path::Path;
use std::sync::Arc;
use swingdb_share::home::Home;
use swingdb_storage::error::Result;
use swingdb_storage::DbDir;

/// How to open a database.
///
/// ```
/// use swingdb_sql::engine::{DbCore, OpenOptions};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("sales.swingdb");
/// let missing = DbCore::open(&path, &OpenOptions { create: false, ..OpenOptions::default() });
/// assert!(missing.is_err(), "create: false refuses a database that is not there");
/// DbCore::open(&path, &OpenOptions::default())?; // creates it
/// let core = DbCore::open(&path, &OpenOptions { read_only: true, ..OpenOptions::default() })?;
/// assert!(core.dir().read_only());
/// # Ok::<(), swingdb_storage::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Refuse every write.
    pub read_only: bool,
    /// Create the directory if it does not exist (ignored with `read_only`).
    pub create: bool,
    /// Check each segment's CRC-32 the first time this handle maps it. Applies
    /// to files on storage; files in memory (tmpfs: in-memory and attached
    /// databases there) never crossed a disk, and are not checked again.
    pub verify_checksums: bool,
    /// Let SQL read and write files (COPY, `read_csv(...)`, `FROM 'file.parquet'`).
    /// Turn it off for code that runs untrusted SQL (DuckDB's `enable_external_access`).
    pub external_access: bool,
    /// With `read_only`: when the newest commit log is damaged, read the
    /// last version before the damage instead of failing, to export what is
    /// left (an error without `read_only`).
    pub recover: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self { read_only: false, create: true, verify_checksums: true, external_access: true, recover: false }
    }
}

impl DbCore {
    /// Opens (by default creating) the database directory at `path`.
    pub fn open(path: &Path, options: &OpenOptions) -> Result<Arc<Self>> {
        let dir = DbDir::open(path, options.create, options.read_only)?;
        if options.recover {
            dir.recover()?;
        }
        let home = Home::at(dir.root());
        Ok(Self::of_dir(dir, options, home))
    }

    /// A new private database in memory (a tmpfs directory removed on close;
    /// `read_only` and `create` do not apply). The directory is claimed in
    /// the user's runtime home (`/dev/shm`), where what crashed processes
    /// left behind is removed on the way.
    pub fn in_memory(options: &OpenOptions) -> Result<Arc<Self>> {
        let home = Home::runtime()?;
        swingdb_share::sweep(&home, None);
        let dir = home.new_private_database()?;
        Ok(Self::of_dir(dir, &OpenOptions { read_only: false, ..options.clone() }, home))
    }

    /// Attaches the snapshot `name`: a new private database of this process
    /// that holds what the snapshot holds, without copying it, removed when
    /// its last handle is dropped. `read_only` and `create` do not apply.
    pub fn attach_snapshot(name: &str, options: &OpenOptions) -> Result<Arc<Self>> {
        let dir = swingdb_share::attach(name)?;
        let home = Home::owning(dir.root());
        Ok(Self::of_dir(dir, &OpenOptions { read_only: false, ..options.clone() }, home))
    }

    fn of_dir(dir: DbDir, options: &OpenOptions, home: Home) -> Arc<Self> {
        Arc::new(DbCore::new(dir, options.verify_checksums, options.external_access, home))
    }
}
