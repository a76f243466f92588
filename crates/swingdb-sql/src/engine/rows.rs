//! [`RowStream`]: a statement's rows fetched on the calling thread, batch by
//! batch, as the engine computes them.

use crate::core::runtime;
use crate::frontend::diagnose::explain;
use crate::Interrupt;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::execution::SendableRecordBatchStream;
use futures::StreamExt;
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;
use swingdb_storage::error::Result;

/// The rows of one statement as they are computed: each fetch waits on the
/// engine's runtime, is cancelled by the session's interrupt, and an error
/// raised while computing points into the statement's text as planning
/// errors do. Empty batches are skipped; after the end or an error, nothing
/// more comes.
pub struct RowStream {
    schema: SchemaRef,
    /// The type of each ENUM column (none for the others), read from the
    /// schema once: each batch's are brought to its labels.
    enums: Vec<Option<EnumType>>,
    stream: Option<SendableRecordBatchStream>,
    interrupt: Interrupt,
    sql: Option<Arc<str>>,
}

impl RowStream {
    /// The rows of `stream`, fetches cancelled by `interrupt` (a session's,
    /// or a fresh one), errors explained by `sql` when given.
    pub fn new(stream: SendableRecordBatchStream, interrupt: Interrupt, sql: Option<&str>) -> Self {
        let enums: Vec<Option<EnumType>> = stream.schema().fields().iter().map(|f| EnumType::of_field(f)).collect();
        let schema = enum_schema(stream.schema(), &enums);
        Self { schema, enums, stream: Some(stream), interrupt, sql: sql.map(Arc::from) }
    }

    /// The rows' schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The next non-empty batch, or `None` at the end.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let Some(stream) = self.stream.as_mut() else { return Ok(None) };
        loop {
            let next = runtime().block_on(self.interrupt.guard(async { Ok(stream.next().await) }, false));
            match next {
                Ok(Some(Ok(batch))) if batch.num_rows() == 0 => continue,
                Ok(Some(Ok(batch))) => return with_enum_labels(batch, &self.schema, &self.enums).map(Some),
                Ok(Some(Err(e))) => {
                    self.stream = None;
                    self.interrupt.end_progress();
                    let e = e.into();
                    return Err(match &self.sql {
                        Some(sql) => explain(e, sql),
                        None => e,
                    });
                }
                Err(interrupted) => {
                    self.stream = None;
                    return Err(interrupted);
                }
                Ok(None) => {
                    self.stream = None;
                    self.interrupt.end_progress();
                    return Ok(None);
                }
            }
        }
    }
}

/// Field metadata naming an ENUM's labels as polars reads them (length,
/// `;`, label, for each), so that its Arrow import makes an `Enum` column.
const POLARS_ENUM_VALUES: &str = "_PL_ENUM_VALUES2";

/// An ENUM column of a result: its type's field, with the labels also said
/// for polars ([`POLARS_ENUM_VALUES`]).
fn enum_result_field(enum_type: &EnumType, field: &Field) -> Field {
    let polars: String = enum_type.labels.iter().map(|l| format!("{};{l}", l.len())).collect();
    let typed = enum_type.field(field.name(), field.is_nullable());
    let mut metadata = typed.metadata().clone();
    metadata.insert(POLARS_ENUM_VALUES.to_string(), polars);
    typed.with_metadata(metadata)
}

/// `schema` with its ENUM columns (`enums`) declared as their type
/// declares them (ordered dictionaries: DataFusion's operators may drop the
/// flag), and their labels said for polars too.
fn enum_schema(schema: SchemaRef, enums: &[Option<EnumType>]) -> SchemaRef {
    if enums.iter().all(Option::is_none) {
        return schema;
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .zip(enums)
        .map(|(f, enum_type)| match enum_type {
            Some(enum_type) => enum_result_field(enum_type, f),
            None => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` as `schema` (see [`enum_schema`]), each ENUM column (`enums`)
/// over its type's one dictionary, its labels in order (see
/// `swingdb_storage::encoding::enums`): Arrow's kernels may have merged or
/// repeated dictionaries, which pandas would take for other categories.
fn with_enum_labels(batch: RecordBatch, schema: &SchemaRef, enums: &[Option<EnumType>]) -> Result<RecordBatch> {
    if enums.iter().all(Option::is_none) {
        return Ok(batch);
    }
    let columns = batch
        .columns()
        .iter()
        .zip(enums)
        .map(|(column, enum_type)| match enum_type {
            Some(enum_type) => enum_type.conform(column),
            None => Ok(column.clone()),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
