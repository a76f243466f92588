//! Manifests: the immutable, versioned description of a whole database.
//!
//! Version N of a database is a record of its commit log (`storage/dir/log.rs`;
//! `manifests/<N>.json` in databases older than the log): the whole manifest,
//! or its change from version N-1 (`manifest/delta.rs`). It lists every table,
//! its schema and the segments that hold its rows, with sizes, checksums and
//! per-column statistics. A version is written once and never changed.

use crate::dir::sequence::Sequence;
use crate::encoding::mode::Compression;
use crate::error::{Error, Result};
use crate::manifest::deleted::DeletedRows;
use crate::manifest::distinct::DistinctSketch;
use crate::manifest::inline::InlineRows;
use crate::manifest::stats::ColumnStats;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;

pub mod ascending;
pub mod compaction;
pub mod deleted;
pub mod distinct;
pub mod inline;
pub mod inline_segment;
pub mod origin;
pub mod rebase;
pub mod stats;

mod definition;
mod delta;
mod json;

pub use definition::Definition;
pub use delta::DELTA_MARK;

/// The newest on-disk format version this build reads. Version 2 added the
/// manifest checksum (version 1 manifests are read without); version 3 added
/// views, and is written only by databases that have one, so that older
/// builds refuse them (they would take a view for an empty table) while
/// still opening every other database; so do keys and defaults, which an
/// older build would not enforce. Version 4 added column ids (tables whose
/// columns were added or dropped), which an older build would misread.
/// Version 5 added inline segments (rows kept in the manifest), which an
/// older build would look for as files. Version 6 added sequences and
/// macros, which an older build would take for empty tables. Version 7 added
/// the commit log (see `dir/log.rs`), whose versions an older build
/// would not see: it is the format marker's version of every database made
/// since, and of older ones once they committed into a log (manifests keep
/// the version of their own content). Version 8 added deleted rows (see
/// `manifest/deleted.rs`), which an older build would read as still there.
/// Version 9 added change records to the commit log (see
/// `manifest/delta.rs`), which an older build would take for damage: it is
/// the marker's version of every database committed to since.
/// Version 10 added encoded segment columns (see `encoding.rs`),
/// which an older build would take for damage. Version 11 added compressed
/// ones (see `encoding/compressed.rs`), which a build of version 10 would take
/// for damage. Version 12 added decimals stored as 8- or 16-bit integers,
/// which a build of version 11 would take for damage: manifests with any
/// encoded segment say 12 since. Version 13 added change records that add
/// a segment's deleted rows without writing the segment out (see
/// `manifest/delta.rs`), which a build of version 12 would take for damage:
/// only such records say 13 (whole manifests keep their versions).
/// Version 14 added ENUM types and columns of them (see `encoding/enums.rs`), which
/// a build of version 13 would take for empty tables and text columns.
/// Version 15 added integer, date, time, timestamp and float columns stored
/// narrower (`compression = 'light'`, see `encoding/narrow.rs`), which a
/// build of version 14 would take for damage: manifests with such a segment
/// say 15. Version 16 added bit-packed columns (`compression = 'light'`, see
/// `encoding/packed.rs`), which a build of version 15 would take for damage:
/// manifests with such a segment say 16.
pub const FORMAT_VERSION: u32 = 16;

/// The format version of manifests with segments whose numbers are bit-packed.
const PACKED_FORMAT_VERSION: u32 = 16;

/// The format version of manifests with segments whose numbers are narrowed.
const NARROWED_FORMAT_VERSION: u32 = 15;

/// The format version of manifests with ENUM types or columns.
const ENUM_FORMAT_VERSION: u32 = 14;

/// The format version of manifests with segments whose columns are encoded
/// (or compressed: which of the two, the manifest does not say).
const ENCODED_FORMAT_VERSION: u32 = 12;

/// The format version of manifests with deleted rows.
const DELETED_FORMAT_VERSION: u32 = 8;

/// The format version of a database whose commit log may hold change
/// records (its marker's; 7 had a log of whole manifests only).
pub const LOG_FORMAT_VERSION: u32 = 9;

/// The format version of manifests with sequences or macros.
const SEQUENCE_FORMAT_VERSION: u32 = 6;

/// The format version of manifests with inline segments but no sequence or macro.
const INLINE_FORMAT_VERSION: u32 = 5;

/// The format version of manifests with altered tables but no inline segment.
const ALTERED_FORMAT_VERSION: u32 = 4;

/// The format version of manifests with views or constraints but no altered table.
const CONSTRAINED_FORMAT_VERSION: u32 = 3;

/// The format version of a manifest without views.
const PLAIN_FORMAT_VERSION: u32 = 2;

/// The first format version whose manifests must carry a checksum.
const CHECKSUMMED_SINCE: u32 = 2;

/// One immutable Arrow IPC file holding some rows of one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentMeta {
    /// File name inside the database's `segments/` directory.
    pub file: String,
    /// Number of rows.
    pub rows: u64,
    /// Exact file size in bytes.
    pub bytes: u64,
    /// CRC-32 of the whole file.
    pub crc32: u32,
    /// CRC-32 of the file's Arrow metadata (footer, message headers and
    /// dictionaries), checked when the segment is mapped. Absent in manifests
    /// written before per-column checksums: those files are checked whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_crc32: Option<u32>,
    /// CRC-32 of each column's buffers, in schema order, checked the first time
    /// a query reads the column: a query touching 2 of 10 columns reads and
    /// checks only those.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_crc32: Vec<u32>,
    /// Per-column statistics, in file order.
    pub stats: Vec<ColumnStats>,
    /// The ids of the table columns the file holds, in file order (see
    /// [`ColumnIds`]). Absent when the file holds the table's columns in
    /// order, which is every segment of a table whose columns were never
    /// added or dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column_ids: Option<Vec<u32>>,
    /// The rows themselves, for a segment kept in the manifest instead of a
    /// file (see [`crate::manifest::inline`]); its `file` is then only its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline: Option<InlineRows>,
    /// The rows, by position, that left the table while the segment stayed
    /// (see [`crate::manifest::deleted`]); `rows` still counts them.
    #[serde(default, skip_serializing_if = "DeletedRows::is_empty")]
    pub deleted: DeletedRows,
    /// For a segment that replaced others (compaction, a rewrite), where
    /// its rows came from (see [`crate::manifest::origin`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origin: Vec<Origin>,
    /// Whether the file stores some column encoded (see [`crate::encoding`]),
    /// which builds before format version 10 cannot read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub encoded: bool,
    /// Whether the file stores some integer, date, time, timestamp or float
    /// column narrowed (see [`crate::encoding::narrow`]), which builds before
    /// format version 15 cannot read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub narrowed: bool,
    /// Whether the file stores some column bit-packed (see
    /// [`crate::encoding::packed`]), which builds before format version 16
    /// cannot read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub packed: bool,
}

impl SegmentMeta {
    /// The rows of the segment that are in its table (`rows` less the deleted).
    pub fn live_rows(&self) -> u64 {
        self.rows - self.deleted.len()
    }
}

/// One of the segments whose rows not deleted a segment holds, in order
/// (see [`crate::manifest::origin`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// The source segment's name.
    pub file: String,
    /// Its rows, deleted ones included.
    pub rows: u64,
    /// The rows it had deleted when merged (not carried over).
    #[serde(default, skip_serializing_if = "DeletedRows::is_empty")]
    pub deleted: DeletedRows,
}

/// How a table whose columns were added or dropped finds them in its
/// segments, which are never rewritten for it: each column has an id no
/// other column of the table ever had (a column dropped and added again under
/// its name is a new column), each segment lists the ids it holds, and a
/// column a segment lacks reads as its fill value (the DEFAULT it was added
/// with, or NULL). Empty for a table never altered so: its columns' ids are
/// their positions, and its segments hold exactly its columns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnIds {
    /// The id of each column, in schema order (empty: the positions).
    pub ids: Vec<u32>,
    /// Each column's value (text in its type) in segments without it; `None` is NULL.
    pub fills: Vec<Option<String>>,
    /// The id the next added column gets.
    pub next: u32,
}

/// What a table promises about its rows beyond their types: keys (enforced
/// on every write) and the values of columns an INSERT leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Constraints {
    /// The PRIMARY KEY's columns (also NOT NULL in the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_key: Option<Vec<String>>,
    /// Each UNIQUE constraint's columns (NULLs never collide).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unique: Vec<Vec<String>>,
    /// DEFAULT expressions, as SQL text, by column.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, String>,
    /// CHECK conditions, as SQL text: each row must not make one false.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
    /// Unique indexes (`CREATE UNIQUE INDEX name ON t (columns)`): their columns, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unique_indexes: BTreeMap<String, Vec<String>>,
    /// Plain (non-unique) indexes, by name: kept, listed and dropped as
    /// named, shown by EXPLAIN as not used; no scan uses them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub indexes: BTreeMap<String, Vec<String>>,
    /// FOREIGN KEYs (RESTRICT), see `storage::foreign_keys`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreign_keys: Vec<ForeignKey>,
    /// Identity columns (numbered when an INSERT leaves them out), each with
    /// the lowest value the next row may get (see `sql::catalog::identity`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub identity: BTreeMap<String, i64>,
    /// The columns the table is kept sorted by (`CLUSTER BY`): each write
    /// sorts its rows by them (ascending, NULLs first), so a segment's rows
    /// ascend by the first and a range filter on it reads only the rows it can
    /// match (see `sql::optimizer::sorted_range`). Scans check that a segment really
    /// ascends before relying on it, so a segment written unsorted (by an
    /// older build, a compaction of an unclustered table) is only read whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_by: Vec<String>,
    /// Which encodings the segments written from now on get (segments keep
    /// the encodings they were written with).
    #[serde(default, skip_serializing_if = "Compression::is_default")]
    pub compression: Compression,
}

/// A FOREIGN KEY: the non-NULL values of `columns` in each row are a key of `parent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForeignKey {
    /// The referencing columns.
    pub columns: Vec<String>,
    /// The referenced table.
    pub parent: String,
    /// The referenced key's columns (its PRIMARY KEY or a UNIQUE key), in the
    /// order of `columns`.
    pub parent_columns: Vec<String>,
}

impl ForeignKey {
    /// `FOREIGN KEY (a) REFERENCES p (id)`.
    pub fn sql(&self) -> String {
        let referenced = match self.parent_columns.is_empty() {
            true => String::new(),
            false => format!(" ({})", self.parent_columns.join(", ")),
        };
        format!("FOREIGN KEY ({}) REFERENCES {}{referenced}", self.columns.join(", "), self.parent)
    }
}

impl Constraints {
    /// Whether there is nothing to enforce or fill in.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Every key (the primary key first) with its SQL name, e.g. `PRIMARY KEY (id)`.
    pub fn keys(&self) -> impl Iterator<Item = (String, &[String])> {
        let primary =
            self.primary_key.iter().map(|cols| (format!("PRIMARY KEY ({})", cols.join(", ")), cols.as_slice()));
        let unique = self.unique.iter().map(|cols| (format!("UNIQUE ({})", cols.join(", ")), cols.as_slice()));
        let indexes = self
            .unique_indexes
            .iter()
            .map(|(name, cols)| (format!("UNIQUE INDEX {name} ({})", cols.join(", ")), cols.as_slice()));
        primary.chain(unique).chain(indexes)
    }
}

/// A table: schema plus segments, or a view, macro or sequence: its definition.
/// Tables, views, macros, sequences and ENUM types share one namespace.
/// `modified` is the database version that last changed it, which is how
/// concurrent writers detect conflicting changes.
#[derive(Debug, Clone, PartialEq)]
pub struct TableMeta {
    /// Arrow schema; non-nullable fields are NOT NULL columns. For a view, its
    /// columns when it was defined (listings; queries re-plan the view).
    pub schema: SchemaRef,
    /// The segments, in insertion order (none for a view).
    pub segments: Vec<SegmentMeta>,
    /// Version of the manifest that last changed this table.
    pub modified: u64,
    /// For a view, macro, sequence or ENUM type, what it is; `None` for a table.
    pub definition: Option<Definition>,
    /// Keys and defaults.
    pub constraints: Constraints,
    /// Where its columns are in its segments, once columns were added or dropped.
    pub column_ids: ColumnIds,
}

impl TableMeta {
    /// A new, empty table.
    pub fn new(schema: SchemaRef) -> Self {
        Self::table(schema, Vec::new(), 0)
    }

    /// A table of `segments`, last changed in version `modified`.
    pub fn table(schema: SchemaRef, segments: Vec<SegmentMeta>, modified: u64) -> Self {
        Self {
            schema,
            segments,
            modified,
            definition: None,
            constraints: Constraints::default(),
            column_ids: ColumnIds::default(),
        }
    }

    /// This table holding `segments` instead (all else kept). Segments
    /// written for it (without column ids) hold its columns as they are now.
    pub fn with_segments(&self, mut segments: Vec<SegmentMeta>) -> Self {
        if self.is_altered() {
            for segment in segments.iter_mut().filter(|s| s.column_ids.is_none()) {
                segment.column_ids = Some(self.column_ids.ids.clone());
            }
        }
        Self { segments, ..self.clone_without_segments() }
    }

    /// The segments, by name.
    pub fn segments_by_name(&self) -> std::collections::HashMap<&str, &SegmentMeta> {
        self.segments.iter().map(|s| (s.file.as_str(), s)).collect()
    }

    /// The number of rows of each segment, by name.
    pub fn rows_by_segment(&self) -> std::collections::HashMap<&str, u64> {
        self.segments.iter().map(|s| (s.file.as_str(), s.rows)).collect()
    }

    /// The rows this version of the table has and `before` had not: each
    /// segment holding some, with the position of the first (a segment's rows
    /// up to the count `before` had under its name are the same rows; see
    /// [`crate::manifest::inline`]). Every row, for a new table.
    pub fn added_rows(&self, before: Option<&TableMeta>) -> Vec<(&SegmentMeta, usize)> {
        let old = before.map(TableMeta::rows_by_segment).unwrap_or_default();
        self.segments
            .iter()
            .filter_map(|s| match old.get(s.file.as_str()) {
                Some(&rows) if rows == s.rows => None,
                Some(&rows) if rows < s.rows => Some((s, rows as usize)),
                _ => Some((s, 0)),
            })
            .collect()
    }

    /// Whether some row of `before` is not in this version of the table.
    pub fn removes_rows_of(&self, before: Option<&TableMeta>) -> bool {
        let now = self.segments_by_name();
        before.is_some_and(|b| {
            b.segments
                .iter()
                .any(|s| now.get(s.file.as_str()).is_none_or(|n| n.rows < s.rows || n.deleted.len() > s.deleted.len()))
        })
    }

    fn clone_without_segments(&self) -> Self {
        Self {
            schema: self.schema.clone(),
            segments: Vec::new(),
            modified: self.modified,
            definition: self.definition.clone(),
            constraints: self.constraints.clone(),
            column_ids: self.column_ids.clone(),
        }
    }

    /// Whether columns were added to or dropped from this table (its segments
    /// then say which columns they hold).
    pub fn is_altered(&self) -> bool {
        !self.column_ids.ids.is_empty()
    }

    /// This table with column ids, its segments saying which columns they
    /// hold: the state in which columns can be added and dropped.
    fn with_column_ids(&self) -> Self {
        if self.is_altered() {
            return self.clone();
        }
        let width = self.schema.fields().len() as u32;
        let mut altered = self.clone();
        altered.column_ids = ColumnIds { ids: (0..width).collect(), fills: vec![None; width as usize], next: width };
        altered.with_segments(self.segments.clone())
    }

    /// This table with `field` added as its last column, reading as `fill`
    /// (text in the column's type; `None` for NULL) in the segments it has now.
    pub fn add_column(&self, field: Field, fill: Option<String>) -> Self {
        let mut altered = self.with_column_ids();
        let mut fields = altered.schema.fields().to_vec();
        fields.push(Arc::new(field));
        altered.schema = Arc::new(Schema::new_with_metadata(fields, altered.schema.metadata().clone()));
        altered.column_ids.ids.push(altered.column_ids.next);
        altered.column_ids.fills.push(fill);
        altered.column_ids.next += 1;
        altered
    }

    /// This table without its column at `index` (its values stay in the
    /// segments that have them, unread, until those are rewritten).
    pub fn drop_column(&self, index: usize) -> Self {
        let mut altered = self.with_column_ids();
        let mut fields = altered.schema.fields().to_vec();
        fields.remove(index);
        altered.schema = Arc::new(Schema::new_with_metadata(fields, altered.schema.metadata().clone()));
        altered.column_ids.ids.remove(index);
        altered.column_ids.fills.remove(index);
        altered
    }

    /// Where each of this table's columns is in `segment`: its position in
    /// the file, or `None` when the segment was written before it was added.
    pub fn segment_columns(&self, segment: &SegmentMeta) -> Vec<Option<usize>> {
        (0..self.schema.fields().len()).map(|index| self.segment_column(segment, index)).collect()
    }

    /// Where column `index` of this table is in `segment` (see [`Self::segment_columns`]).
    pub fn segment_column(&self, segment: &SegmentMeta, index: usize) -> Option<usize> {
        match (&segment.column_ids, self.column_ids.ids.get(index)) {
            (Some(held), Some(id)) => held.iter().position(|h| h == id),
            _ => Some(index),
        }
    }

    /// The fill value (text) of column `index` in segments without it; `None` is NULL.
    pub fn fill(&self, index: usize) -> Option<&str> {
        self.column_ids.fills.get(index).and_then(|f| f.as_deref())
    }

    /// Statistics of column `index` of this table in `segment`.
    pub fn column_stats(&self, segment: &SegmentMeta, index: usize) -> Option<ColumnStats> {
        if index >= self.schema.fields().len() {
            return None;
        }
        match self.segment_column(segment, index) {
            Some(at) => segment.stats.get(at).cloned(),
            None => Some(match self.fill(index) {
                Some(value) => {
                    ColumnStats { min: Some(value.to_string()), max: Some(value.to_string()), nulls: 0, distinct: None }
                }
                None => ColumnStats { min: None, max: None, nulls: segment.rows, distinct: None },
            }),
        }
    }

    /// The distinct-count sketch of column `index` in segments written before
    /// it was added (one value, its fill), when it has a fill value of a
    /// sketched type. [`Self::column_stats`] leaves it out: it is the same for
    /// every such segment, and only the planner's estimates need it.
    pub fn fill_sketch(&self, index: usize) -> Option<DistinctSketch> {
        let one = datafusion::scalar::ScalarValue::try_from_string(
            self.fill(index)?.to_string(),
            self.schema.field(index).data_type(),
        );
        DistinctSketch::of(&one.and_then(|v| v.to_array()).ok()?)
    }

    /// Total number of rows (deleted ones not counted).
    pub fn num_rows(&self) -> u64 {
        self.segments.iter().map(SegmentMeta::live_rows).sum()
    }
}

/// One committed version of the database.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Manifest {
    /// The version number (1 for the first commit; 0 is the empty database).
    pub version: u64,
    /// Tables by name.
    pub tables: BTreeMap<String, Arc<TableMeta>>,
}

/// Whether `a` and `b` list the very same table objects under the same
/// names. Every change to a table (a commit, a statement of a transaction, a
/// manifest read afresh) makes a new object, so this is "nothing changed",
/// without comparing contents.
pub fn same_tables(a: &BTreeMap<String, Arc<TableMeta>>, b: &BTreeMap<String, Arc<TableMeta>>) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((n, x), (m, y))| n == m && Arc::ptr_eq(x, y))
}

impl Manifest {
    /// Every file in `segments/` this manifest references: segment files
    /// (inline segments have none) and sequence counters.
    pub fn segment_files(&self) -> impl Iterator<Item = &str> {
        self.tables.values().flat_map(|t| {
            let segments = t.segments.iter().filter(|s| s.inline.is_none()).map(|s| s.file.as_str());
            segments.chain(t.as_sequence().map(|s| s.file.as_str()))
        })
    }

    /// The name of every segment this manifest references, inline ones
    /// included (what a [`crate::SegmentStore`] keeps per segment, see
    /// [`crate::SegmentStore::retain`]).
    pub fn segment_names(&self) -> impl Iterator<Item = &str> {
        self.tables.values().flat_map(|t| t.segments.iter().map(|s| s.file.as_str()))
    }
}

#[cfg(test)]
mod tests;
