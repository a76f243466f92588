//! The per-database cache of mapped segments: each segment file is mapped and
//! verified once per handle and shared by every query that reads it.

use crate::dir::DbDir;
use crate::encoding::{decode, decompress_batch, stores, with_stored_types};
use crate::error::{Error, Result};
use crate::manifest::deleted::DeletedRows;
use crate::manifest::inline::InlineRows;
use crate::manifest::{SegmentMeta, TableMeta};
use crate::segment::scan_checks::ScanChecks;
use crate::segment::MappedSegment;
use datafusion::arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::filter_record_batch;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::scalar::ScalarValue;
use parking_lot::Mutex;
use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Maps segments on first use and keeps them mapped while the current snapshot
/// references them.
#[derive(Debug)]
pub struct SegmentStore {
    dir: Arc<DbDir>,
    verify: bool,
    mapped: Mutex<HashMap<String, Arc<MappedSegment>>>,
    /// What was derived from a segment (a key run, by its key's
    /// fingerprint; see [`SegmentStore::derived`]), with the segment's row
    /// count it covers, kept while the segment is live.
    derived: Mutex<HashMap<(String, String), (u64, Derived)>>,
}

/// Something derived from one segment (see [`SegmentStore::derived`]).
type Derived = Arc<dyn Any + Send + Sync>;

impl SegmentStore {
    /// A store over `dir`; with `verify`, each segment's CRC-32 is checked the
    /// first time this handle maps it.
    pub fn new(dir: Arc<DbDir>, verify: bool) -> Self {
        Self { dir, verify, mapped: Mutex::new(HashMap::new()), derived: Mutex::default() }
    }

    /// The database directory.
    pub fn dir(&self) -> &Arc<DbDir> {
        &self.dir
    }

    /// Segment `meta` of `table`, mapped (or, inline, as it is), as that table's columns.
    pub fn map(&self, table: &TableMeta, meta: &SegmentMeta) -> Result<SegmentView> {
        if let Some(rows) = &meta.inline {
            return SegmentView::new(Stored::Inline(rows.clone()), table, meta);
        }
        let cached = self.mapped.lock().get(&meta.file).cloned();
        let mapped = match cached {
            Some(mapped) => {
                if let Err(e) = mapped.check_size() {
                    // Mapped afresh (and checked) by the next statement, should the file be mended.
                    self.mapped.lock().remove(&meta.file);
                    return Err(e);
                }
                mapped
            }
            None => {
                let mapped = Arc::new(MappedSegment::open(&self.dir.segment_path(&meta.file), meta, self.verify)?);
                self.mapped.lock().insert(meta.file.clone(), mapped.clone());
                mapped
            }
        };
        SegmentView::new(Stored::File(mapped), table, meta)
    }

    /// Forgets mappings of segments not in `live` (named as by
    /// [`crate::Manifest::segment_names`]; queries that still use them keep
    /// their own references, so nothing they hold is unmapped), and what was
    /// derived from them.
    pub fn retain(&self, live: &HashSet<&str>) {
        self.mapped.lock().retain(|file, _| live.contains(file.as_str()));
        self.derived.lock().retain(|(file, _), _| live.contains(file.as_str()));
    }

    /// The `T` derived from `segment` under `name`: the one kept from an
    /// earlier call, else `make`'s (kept while the segment is live, if it
    /// gave one). A segment's name and row count identify its rows (a
    /// transaction's inline tail grows under its name, see
    /// [`crate::manifest::inline`]; nothing else changes), so what is derived
    /// from them never changes: a tail that grew gets a new one, which
    /// replaces the old, and two callers racing both make it.
    pub fn derived<T: Any + Send + Sync>(
        &self,
        segment: &SegmentMeta,
        name: &str,
        make: impl FnOnce() -> Result<Option<T>>,
    ) -> Result<Option<Arc<T>>> {
        let key = (segment.file.clone(), name.to_string());
        if let Some((rows, kept)) = self.derived.lock().get(&key) {
            if *rows == segment.rows {
                return Ok(kept.clone().downcast::<T>().ok());
            }
        }
        let Some(made) = make()? else { return Ok(None) };
        let made: Derived = Arc::new(made);
        self.derived.lock().insert(key, (segment.rows, made.clone()));
        Ok(made.downcast::<T>().ok())
    }
}

/// A segment's rows as they are stored.
#[derive(Debug)]
enum Stored {
    /// A mapped segment file.
    File(Arc<MappedSegment>),
    /// Rows kept in the manifest.
    Inline(InlineRows),
}

impl Stored {
    fn schema(&self) -> &SchemaRef {
        match self {
            Stored::File(mapped) => mapped.schema(),
            Stored::Inline(rows) => rows.schema(),
        }
    }

    /// The batches with the file's columns `projection`, each column checked
    /// first unless `checked_later` (see [`crate::segment::scan_checks`]).
    fn batches(&self, projection: &[usize], checked_later: bool) -> Result<Vec<RecordBatch>> {
        match self {
            Stored::File(mapped) if checked_later => mapped.batches_to_check(Some(projection)),
            Stored::File(mapped) => mapped.batches(Some(projection)),
            Stored::Inline(rows) => {
                Ok(rows.batches().iter().map(|b| b.project(projection)).collect::<std::result::Result<_, _>>()?)
            }
        }
    }

    /// The segment, for messages.
    fn describe(&self) -> String {
        match self {
            Stored::File(mapped) => mapped.path().display().to_string(),
            Stored::Inline(_) => "kept in the manifest".to_string(),
        }
    }
}

/// Where a table column's values come from in one segment.
#[derive(Debug)]
enum Source {
    /// The file's column at this position.
    File(usize),
    /// A column added after the segment was written: this value in every row.
    Fill(ScalarValue),
}

/// A mapped segment seen as the columns of one version of its table: the
/// file's columns under the table's names (and nullability), in the table's
/// order, and columns added after the file was written as their fill value.
/// The file's arrays are handed out as they are (zero-copy), except encoded
/// ones (see [`crate::encoding`]), which are decoded unless asked for as stored.
#[derive(Debug)]
pub struct SegmentView {
    stored: Stored,
    schema: SchemaRef,
    sources: Vec<Source>,
    /// The rows left out of [`Self::batches`] (see [`crate::manifest::deleted`]).
    deleted: DeletedRows,
}

impl SegmentView {
    fn new(stored: Stored, table: &TableMeta, meta: &SegmentMeta) -> Result<Self> {
        let file = stored.schema();
        let sources = table
            .segment_columns(meta)
            .into_iter()
            .enumerate()
            .map(|(i, at)| {
                let field = table.schema.field(i);
                match at {
                    Some(at) if at < file.fields().len() && stores(file.field(at).data_type(), field.data_type()) => {
                        Ok(Source::File(at))
                    }
                    Some(at) => Err(Error::corruption(format!(
                        "segment {} ({}) does not hold column '{}' of type {} where the manifest says (it holds {})",
                        meta.file,
                        stored.describe(),
                        field.name(),
                        field.data_type(),
                        file.fields().get(at).map_or("fewer columns".to_string(), |f| f.data_type().to_string())
                    ))),
                    None => {
                        let fill = match table.fill(i) {
                            Some(text) => ScalarValue::try_from_string(text.to_string(), field.data_type())?,
                            None => ScalarValue::try_from(field.data_type())?,
                        };
                        Ok(Source::Fill(fill))
                    }
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { stored, schema: table.schema.clone(), sources, deleted: meta.deleted.clone() })
    }

    /// The segment's rows in its table (its deleted rows left out) with the
    /// table columns of `projection` (all when `None`); the file's columns are
    /// checked against their checksums the first time they are handed out.
    /// Zero-copy where no row of a batch is deleted.
    pub fn batches(&self, projection: Option<&[usize]>) -> Result<Vec<RecordBatch>> {
        self.live(self.all_batches(projection)?, 0)
    }

    /// The rows of `batches`, which hold the segment's rows from position
    /// `start` on, without the deleted ones.
    fn live(&self, batches: Vec<RecordBatch>, start: u64) -> Result<Vec<RecordBatch>> {
        if self.deleted.is_empty() {
            return Ok(batches);
        }
        let mut at = start;
        let mut out = Vec::with_capacity(batches.len());
        for batch in batches {
            let rows = batch.num_rows();
            out.push(live_rows(&batch, &self.deleted, at, &self.schema)?);
            at += rows as u64;
        }
        Ok(out)
    }

    /// The rows deleted from the segment, by position in [`Self::all_batches`].
    pub fn deleted(&self) -> &DeletedRows {
        &self.deleted
    }

    /// Every row the segment holds, its deleted rows included (see
    /// [`Self::deleted`]), as [`Self::batches`] otherwise: for readers that
    /// need rows' positions in the segment.
    pub fn all_batches(&self, projection: Option<&[usize]>) -> Result<Vec<RecordBatch>> {
        self.read(projection, true, false)
    }

    /// [`Self::all_batches`] with encoded columns as they are stored (see
    /// [`crate::encoding`]), each batch with its own schema (the table's
    /// names, the stored types): for a scan, which decodes them a slice at a
    /// time (see [`crate::encoding::decode_batch`]).
    pub fn stored_batches(&self, projection: Option<&[usize]>) -> Result<Vec<RecordBatch>> {
        self.read(projection, false, false)
    }

    /// [`Self::stored_batches`] with the table columns `projection`, whose
    /// file columns `checks` checks when a scan first reaches one of the
    /// batches (and asks the kernel to read beforehand), not now. Segments
    /// with deleted rows are checked now: leaving those rows out reads them.
    pub fn stored_batches_checked_later(
        &self,
        projection: &[usize],
        checks: &mut ScanChecks,
    ) -> Result<Vec<RecordBatch>> {
        let Stored::File(mapped) = &self.stored else { return self.stored_batches(Some(projection)) };
        if !self.deleted.is_empty() {
            return self.stored_batches(Some(projection));
        }
        checks.add(mapped.clone(), self.file_columns(projection));
        self.read(Some(projection), false, true)
    }

    /// The file's columns that hold table columns `columns`, each once, in
    /// the order first needed (columns added since the file was written hold
    /// none).
    fn file_columns(&self, columns: &[usize]) -> Vec<usize> {
        let mut read: Vec<usize> = Vec::new();
        for &c in columns {
            if let Source::File(at) = self.sources[c] {
                if !read.contains(&at) {
                    read.push(at);
                }
            }
        }
        read
    }

    fn read(&self, projection: Option<&[usize]>, decoded: bool, checked_later: bool) -> Result<Vec<RecordBatch>> {
        let all: Vec<usize>;
        let columns = match projection {
            Some(p) => p,
            None => {
                all = (0..self.sources.len()).collect();
                &all
            }
        };
        let read = self.file_columns(columns);
        // Deleted rows may hold NULLs where the table now says NOT NULL (set
        // after an UPDATE replaced them): read whole, every column may.
        let schema = match self.deleted.is_empty() {
            true => Arc::new(self.schema.project(columns)?),
            false => nullable(&self.schema.project(columns)?),
        };
        let mut out = Vec::new();
        for batch in self.stored.batches(&read, checked_later)? {
            let rows = batch.num_rows();
            let arrays = columns
                .iter()
                .zip(schema.fields())
                .map(|(&c, field)| match &self.sources[c] {
                    Source::File(at) => {
                        let stored = batch.column(read.iter().position(|r| r == at).expect("read"));
                        match decoded {
                            true => decode(stored, field.data_type()),
                            false => Ok(stored.clone()),
                        }
                    }
                    Source::Fill(value) => Ok(value.to_array_of_size(rows)?),
                })
                .collect::<Result<Vec<ArrayRef>>>()?;
            let options = RecordBatchOptions::new().with_row_count(Some(rows));
            let schema = match decoded {
                true => schema.clone(),
                false => with_stored_types(&schema, &arrays),
            };
            out.push(RecordBatch::try_new_with_options(schema, arrays, &options).map_err(|e| {
                Error::corruption(format!("segment {} does not fit its table: {e}", self.stored.describe()))
            })?);
        }
        Ok(out)
    }

    /// Whether the values of table column `index` ascend through the
    /// segment, NULLs first (see [`crate::manifest::ascending`]).
    pub fn ascends(&self, index: usize) -> Result<bool> {
        match (&self.sources[index], &self.stored) {
            (Source::Fill(_), _) => Ok(true),
            (Source::File(at), Stored::File(mapped)) => mapped.ascends(*at),
            (Source::File(at), Stored::Inline(rows)) => {
                Ok(crate::manifest::ascending::column_ascends(rows.batches(), *at))
            }
        }
    }

    /// [`Self::batches`] without the rows before position `from` (as
    /// [`Self::all_batches`] counts them: deleted ones included).
    pub fn batches_from(&self, projection: Option<&[usize]>, from: usize) -> Result<Vec<RecordBatch>> {
        let mut skip = from;
        let mut out = Vec::new();
        for batch in self.all_batches(projection)? {
            let rows = batch.num_rows();
            if skip >= rows {
                skip -= rows;
                continue;
            }
            out.push(batch.slice(skip, rows - skip));
            skip = 0;
        }
        self.live(out, from as u64)
    }
}

/// `schema` with every column nullable.
pub fn nullable(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone().with_nullable(true)).collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The rows of `batch` (the segment's rows from position `start` on, read
/// whole: see [`SegmentView::all_batches`]) that `deleted` keeps, with the
/// nullability of `table`'s columns of the same names again.
pub fn live_rows(batch: &RecordBatch, deleted: &DeletedRows, start: u64, table: &Schema) -> Result<RecordBatch> {
    let kept = match deleted.kept(start, batch.num_rows()) {
        Some(kept) => filter_record_batch(&decompress_batch(batch)?, &kept)?,
        None => batch.clone(),
    };
    let fields: Vec<Field> = kept
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(table.field_with_name(f.name()).map_or(true, |t| t.is_nullable())))
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(fields, kept.schema().metadata().clone()));
    let options = RecordBatchOptions::new().with_row_count(Some(kept.num_rows()));
    Ok(RecordBatch::try_new_with_options(schema, kept.columns().to_vec(), &options)?)
}
