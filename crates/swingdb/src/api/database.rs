//! `Database`: one open database (a directory, or a private in-memory one), the
//! factory of connections, and the place where transactions commit.

use super::connection::Connection;
use super::result::QueryResult;
use std::path::Path;
use std::sync::Arc;
use swingdb_share::SnapshotInfo;
use swingdb_sql::engine::{DbCore, OpenOptions, Output};
use swingdb_storage::error::Result;
use swingdb_storage::{GcReport, Manifest, MappedSegment};

/// What [`Database::verify`] checked.
///
/// ```edition2024
/// let db = swingdb::Database::in_memory()?;
/// db.connect()?.execute("CREATE TABLE t AS SELECT value AS a FROM range(2)", &[])?;
/// let report = db.verify()?;
/// assert_eq!((report.tables, report.rows), (1, 2));
/// # Ok::<(), swingdb::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// The version checked.
    pub version: u64,
    /// Tables checked.
    pub tables: usize,
    /// Segments whose size, checksum and Arrow structure were checked.
    pub segments: usize,
    /// Rows in those segments.
    pub rows: u64,
}

/// An open database. Cheap to clone; every clone shares one handle.
///
/// ```edition2024
/// use swingdb::{Database, OpenOptions};
/// let dir = tempfile::tempdir().unwrap();
/// let db = Database::open(dir.path().join("db"), OpenOptions::default())?;
/// db.connect()?.execute("CREATE TABLE t (a INTEGER)", &[])?;
/// assert_eq!(db.version()?, 1, "one commit so far");
/// // Another handle (here, or in another process) sees the committed table.
/// let other = Database::open(dir.path().join("db"), OpenOptions::default())?;
/// assert_eq!(other.connect()?.table_names()?, ["t"]);
/// # Ok::<(), swingdb::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Database {
    pub(crate) core: Arc<DbCore>,
}

impl Database {
    /// Opens (by default creating) the database directory at `path`.
    ///
    /// ```edition2024
    /// use swingdb::{Database, OpenOptions};
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("sales.swingdb");
    /// let missing = Database::open(&path, OpenOptions { create: false, ..OpenOptions::default() });
    /// assert!(missing.is_err(), "create: false refuses a database that is not there");
    /// Database::open(&path, OpenOptions::default())?; // creates it
    /// let db = Database::open(&path, OpenOptions { read_only: true, ..OpenOptions::default() })?;
    /// assert!(db.connect()?.execute("CREATE TABLE t (a INTEGER)", &[]).is_err());
    /// # Ok::<(), swingdb::Error>(())
    /// ```
    pub fn open(path: impl AsRef<Path>, options: OpenOptions) -> Result<Self> {
        Ok(Self { core: DbCore::open(path.as_ref(), &options)? })
    }

    /// A new private database in memory (a tmpfs directory removed on close).
    pub fn in_memory() -> Result<Self> {
        Self::in_memory_with(OpenOptions::default())
    }

    /// [`Database::in_memory`] with `options` (`read_only` and `create` do not apply).
    /// The directory is claimed in the user's runtime home (`/dev/shm`), where
    /// what crashed processes left behind is removed on the way.
    pub fn in_memory_with(options: OpenOptions) -> Result<Self> {
        Ok(Self { core: DbCore::in_memory(&options)? })
    }

    /// Attaches the snapshot `name` (see [`crate::Connection::share`]): a new
    /// private database of this process that holds what the snapshot holds,
    /// without copying it. Nobody else sees what is done to it; it is removed
    /// when its last handle is dropped. `read_only` and `create` do not apply.
    pub fn attach(name: &str, options: OpenOptions) -> Result<Self> {
        Ok(Self { core: DbCore::attach_snapshot(name, &options)? })
    }

    /// The snapshots of this user that can be attached (see [`swingdb_share::snapshots`]).
    pub fn snapshots() -> Result<Vec<SnapshotInfo>> {
        swingdb_share::snapshots()
    }

    /// Removes snapshot `name`; databases attached from it keep what they have.
    pub fn discard(name: &str) -> Result<()> {
        swingdb_share::discard(name)
    }

    /// The rows of the pipe `url` as a streaming result, without a database
    /// (Python's `swingdb.pipe.reader`): waits for the exporter, then reads.
    pub fn pipe_reader(url: &swingdb_pipe::PipeUrl) -> Result<QueryResult> {
        let receiver = swingdb_pipe::Receiver::open(&swingdb_pipe::Rendezvous::user()?, url)?;
        Ok(QueryResult::from(Output::Stream(swingdb_pipe::PipeTable::new(receiver)?.into_stream())))
    }

    /// A new connection.
    pub fn connect(&self) -> Result<Connection> {
        Connection::new(self.core.clone())
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        self.core.dir().root()
    }

    /// Whether this is a private database (in memory, or attached from a
    /// snapshot), removed when its last handle is dropped.
    pub fn is_in_memory(&self) -> bool {
        self.core.dir().is_private()
    }

    /// The newest committed version.
    pub fn version(&self) -> Result<u64> {
        self.core.dir().latest_version()
    }

    /// Removes versions and segments no reader pins any more.
    /// Waits for commits in progress to finish.
    pub fn collect_garbage(&self) -> Result<GcReport> {
        self.core.dir().collect_garbage(true)
    }

    /// Checks every record of every commit log, the newest version's
    /// manifest checksum and every segment of it: size, CRC-32 and Arrow
    /// structure, reading the files afresh.
    pub fn verify(&self) -> Result<VerifyReport> {
        let dir = self.core.dir();
        dir.verify_logs()?;
        let pinned = dir.pin_latest()?;
        let result = (|| {
            // Read afresh (not the cached copy), so that its checksum is checked now.
            let manifest =
                if pinned.version == 0 { Manifest::default() } else { dir.read_manifest_uncached(pinned.version)? };
            let mut report =
                VerifyReport { version: manifest.version, tables: manifest.tables.len(), segments: 0, rows: 0 };
            for table in manifest.tables.values() {
                // Inline segments were decoded with the manifest, under its checksum.
                for seg in &table.segments {
                    if seg.inline.is_none() {
                        MappedSegment::open(&dir.segment_path(&seg.file), seg, true)?.batches(None)?;
                    }
                    report.segments += 1;
                    report.rows += seg.live_rows();
                }
            }
            Ok(report)
        })();
        dir.unpin(pinned.version);
        result
    }
}
