//! swingdb-pipe: data pipes, tables moved between processes (and databases) as
//! Arrow IPC streams instead of CSV files (seed 004, PipeGen). Built on
//! `swingdb-storage` and `swingdb-share`; the SQL layer plans pipes as tables
//! and statements, this crate moves their rows.
//!
//! ```
//! use swingdb_pipe::{waiting_pipes, PipeUrl, Role};
//! let url = PipeUrl::parse("db://sales?workers=2")?;
//! assert_eq!(url.name, "sales");
//! assert!(waiting_pipes()?.iter().all(|w| w.name != format!("doc-none-{}", std::process::id())));
//! assert_eq!(Role::named("import"), Some(Role::Import));
//! # Ok::<(), swingdb_storage::Error>(())
//! ```
//!
//! An exporter (`COPY t TO 'db://NAME'`) and an importer (`SELECT * FROM
//! 'db://NAME'`, `COPY t2 FROM 'db://NAME'`, ...) meet by name at the user's
//! rendezvous directory ([`rendezvous`]), whichever comes first waiting for the
//! other. They talk over one Unix socket ([`wire`]): hellos (schema, workers,
//! compression, verify), then either
//! - **handover**: the exporter's rows are a stored table and the importer
//!   writes them into a table of the same column types: the importer
//!   hard-links the exporter's immutable segment files into its own database
//!   and commits references to them; no row moves, the time does not depend
//!   on the size; or
//! - **streams**: the exporter passes the importer the ends of N socket pairs
//!   and writes one Arrow IPC stream (optionally LZ4/ZSTD) into each, in
//!   parallel; a full socket blocks the writer, so a slow importer never makes
//!   the exporter buffer the table.
//!
//! Both ends end with an exchange of row counts (and, with `verify=1`,
//! checksums of every stream's bytes); the importer only confirms what matched,
//! and a failure on either side reaches the other as an error naming the pipe.
//! The importer's statement is atomic as every statement is: a failed
//! transfer leaves its table as it was.
//!
//! Files and interleavings: the rendezvous directory's are described in
//! [`rendezvous`]. Handover links segment files the exporter's transaction
//! pins (its statement holds the pin until the importer has said `Done`, i.e.
//! after the last link exists), so the exporter's garbage collection cannot
//! delete a file between offer and link; the importer links under fresh names
//! of its own lease, which its collection leaves alone until its transaction
//! commits or deletes them. Segment files are never written after they are
//! published, so a link is as good as a copy.

pub mod fifo;
pub mod link;
pub mod net;
pub mod postgres;
pub mod rendezvous;
pub mod table;
pub mod transfer;
pub mod url;
pub mod wire;
pub mod writer;

pub use fifo::{fifo_in, TextFormat};
pub use rendezvous::{Rendezvous, WaitingPipe};
pub use table::{PendingImport, PipeTable};
pub use transfer::{Receiver, Sender};
pub use url::PipeUrl;
pub use wire::Offer;
pub use writer::PipeWriter;

use swingdb_storage::error::Result;

/// The pipe ends waiting at this user's rendezvous for a partner (what
/// `swingdb pipes` and `swingdb.pipes()` list).
pub fn waiting_pipes() -> Result<Vec<WaitingPipe>> {
    Rendezvous::user()?.waiting()
}

/// Which end of a pipe.
///
/// ```edition2024
/// use swingdb_pipe::Role;
/// assert_eq!(Role::named(Role::Export.as_str()), Some(Role::Export));
/// assert_eq!(Role::named("sideways"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Role {
    /// Sends rows.
    Export,
    /// Receives rows.
    Import,
}

impl Role {
    /// `export` or `import`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Export => "export",
            Role::Import => "import",
        }
    }

    /// The role named `text`.
    pub fn named(text: &str) -> Option<Self> {
        match text {
            "export" => Some(Role::Export),
            "import" => Some(Role::Import),
            _ => None,
        }
    }

    /// The other end.
    pub fn partner(self) -> Self {
        match self {
            Role::Export => Role::Import,
            Role::Import => Role::Export,
        }
    }

    /// `exporter` or `importer`.
    pub fn describe(self) -> &'static str {
        match self {
            Role::Export => "exporter",
            Role::Import => "importer",
        }
    }
}
