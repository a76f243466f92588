//! INSERT, UPDATE and DELETE: new rows go to new segments; changed and
//! deleted rows are found by a private row-id column and marked deleted in
//! their segments (an UPDATE writes their new versions as new rows).

use super::run_plan::u64_values;
use super::Executor;
use super::Output;
use crate::catalog::table::SegmentTable;
use crate::frontend::names::table_name;
use crate::frontend::prepare::{Returning, Upsert};
use datafusion::arrow::array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::{cast_with_options, concat_batches, CastOptions};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, TableReference};
use datafusion::datasource::{provider_as_source, MemTable};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{
    DmlStatement, Expr, LogicalPlan, LogicalPlanBuilder, Projection, TableScanBuilder, TableSource, Values, WriteOp,
};
use std::collections::HashMap;
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::manifest::deleted::{max_ranges, DeletedRows, REWRITE_FRACTION};
use swingdb_storage::manifest::origin::{limit_origins, origins};
use swingdb_storage::segment::store::live_rows;
use swingdb_storage::{SegmentMeta, TableMeta, TableWriter};

/// Name of the row-id column DML adds to its private scans of the target table.
/// The row-id column DELETE, UPDATE and upserts find rows by.
pub(crate) const ROW_ID: &str = "__swingdb_row_id";

/// Casts `batch` to the table's `schema` column by column (text to an
/// ENUM's labels) and enforces NOT NULL.
pub(crate) fn conform(batch: &RecordBatch, schema: &SchemaRef, table: &str) -> Result<RecordBatch> {
    if batch.num_columns() != schema.fields().len() {
        return Err(Error::programming(format!(
            "table '{table}' has {} columns but {} values were supplied",
            schema.fields().len(),
            batch.num_columns()
        )));
    }
    let options = CastOptions { safe: false, ..Default::default() };
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let column = if let Some(enum_type) = EnumType::of_field(field) {
            enum_type.conform(column).map_err(|e| {
                Error::new(e.kind(), format!("column '{}' of table '{table}': {}", field.name(), e.message()))
            })?
        } else if column.data_type() == field.data_type() {
            column.clone()
        } else {
            cast_with_options(column, field.data_type(), &options).map_err(|e| {
                Error::new(
                    ErrorKind::Data,
                    format!(
                        "column '{}' of table '{table}' is {}: cannot store a {} value there ({e})",
                        field.name(),
                        field.data_type(),
                        column.data_type()
                    ),
                )
            })?
        };
        if !field.is_nullable() && column.null_count() > 0 {
            return Err(Error::new(
                ErrorKind::Integrity,
                format!("NULL value in column '{}' of table '{table}' violates its NOT NULL constraint", field.name()),
            ));
        }
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(schema.clone(), columns, &options)?)
}

/// `input` (an INSERT's rows) with the columns of its VALUES lists declared
/// nullable. DataFusion plans an INSERT's VALUES in the table's schema, NOT
/// NULL included, so a NULL there would fail inside DataFusion in its own
/// column names ("column2") and its optimizer could fold `IS NULL` tests on
/// them to false; declared nullable, the rows reach [`conform`], which
/// refuses a NULL in a NOT NULL column as an integrity error naming the
/// table's column.
pub(crate) fn nullable_values(input: LogicalPlan) -> Result<LogicalPlan> {
    let relaxed = input.transform_up(|node| match node {
        LogicalPlan::Values(values) => {
            let fields = values
                .schema
                .iter()
                .map(|(qualifier, field)| (qualifier.cloned(), Arc::new(field.as_ref().clone().with_nullable(true))))
                .collect();
            let schema = DFSchema::new_with_metadata(fields, values.schema.metadata().clone())?;
            Ok(Transformed::yes(LogicalPlan::Values(Values { schema: Arc::new(schema), values: values.values })))
        }
        other => Ok(Transformed::yes(other.recompute_schema()?)),
    })?;
    Ok(relaxed.data)
}

/// Replaces the scan of `table` inside `plan` by a scan of `source`.
fn replace_scan(plan: &LogicalPlan, table: &TableReference, source: Arc<dyn TableSource>) -> Result<LogicalPlan> {
    let replaced = plan.clone().transform_up(|node| match node {
        LogicalPlan::TableScan(scan) if scan.table_name.resolved_eq(table) => {
            let new = TableScanBuilder::new(scan.table_name.clone(), source.clone())
                .with_filters(scan.filters.clone())
                .with_fetch(scan.fetch)
                .build()?;
            Ok(Transformed::yes(LogicalPlan::TableScan(new)))
        }
        other => Ok(Transformed::yes(other.recompute_schema()?)),
    })?;
    Ok(replaced.data)
}

/// What a write did: how many rows it wrote and, when RETURNING asks for
/// them, those rows shaped as the table (new versions; for DELETE, the rows
/// as they were).
pub(crate) struct Written {
    pub count: u64,
    pub rows: Vec<RecordBatch>,
}

impl Executor {
    /// Runs INSERT, UPDATE or DELETE; `upsert` is an INSERT's conflict
    /// clause, `returning` what it returns of the rows it writes.
    pub(crate) async fn run_dml(
        &self,
        dml: DmlStatement,
        upsert: Option<Upsert>,
        returning: Option<Returning>,
    ) -> Result<Output> {
        let name = table_name(&dml.table_name, &self.own)?;
        let meta = self.table(&name)?;
        let keep = returning.is_some();
        let written = match (dml.op, upsert) {
            (WriteOp::Insert(InsertOp::Append), Some(upsert)) => {
                self.upsert(&name, meta.clone(), dml.input.as_ref().clone(), upsert, keep).await?
            }
            (WriteOp::Insert(op), _) => self.insert(&name, &meta, dml.input.as_ref().clone(), op, keep).await?,
            (WriteOp::Delete, _) => self.delete(&name, &meta, &dml.input, &dml.table_name, keep).await?,
            (WriteOp::Update, _) => self.update(&name, &meta, &dml.input, &dml.table_name, keep).await?,
            (other, _) => return Err(Error::new(ErrorKind::NotSupported, format!("{other} is not supported yet"))),
        };
        match returning {
            Some(returning) => self.returned_rows(returning, &meta.schema, written.rows, None).await,
            None => Ok(Output::Count(written.count)),
        }
    }

    /// INSERT of the rows of `input` into table `name` (now `meta`).
    async fn insert(
        &self,
        name: &str,
        meta: &Arc<TableMeta>,
        input: LogicalPlan,
        op: InsertOp,
        keep: bool,
    ) -> Result<Written> {
        if op == InsertOp::Replace {
            return Err(Error::new(ErrorKind::NotSupported, "REPLACE INTO is not supported; use DELETE then INSERT"));
        }
        let (added, rows) = self.store_input(name, meta, input, keep).await?;
        let count: u64 = added.iter().map(|s| s.rows).sum();
        let segments = match op {
            InsertOp::Overwrite => added,
            _ => self.appended(meta, added)?,
        };
        self.set_table(name, meta.with_segments(segments))?;
        Ok(Written { count, rows })
    }

    /// Stores the rows of `input` as new segments of table `name`; with
    /// `keep`, collected first and kept (in the table's types) for RETURNING,
    /// else streamed into the segments (no rows kept).
    pub(crate) async fn store_input(
        &self,
        name: &str,
        meta: &TableMeta,
        input: LogicalPlan,
        keep: bool,
    ) -> Result<(Vec<SegmentMeta>, Vec<RecordBatch>)> {
        if !keep {
            let segments = self.store_rows(input, &meta.schema, name, &meta.constraints).await?;
            return Ok((segments, Vec::new()));
        }
        let rows = self.collect_plan(nullable_values(input)?).await?;
        let rows = rows.iter().map(|b| conform(b, &meta.schema, name)).collect::<Result<Vec<_>>>()?;
        Ok((self.store_batches(name, meta, rows.clone()).await?, rows))
    }

    /// DELETE of the rows of table `name` (now `meta`) that `input` finds.
    async fn delete(
        &self,
        name: &str,
        meta: &Arc<TableMeta>,
        input: &LogicalPlan,
        table: &TableReference,
        keep: bool,
    ) -> Result<Written> {
        let plan = replace_scan(input, table, self.row_id_source(meta))?;
        let mut projection = Vec::new();
        if keep {
            for field in meta.schema.fields() {
                let (qualifier, field) = plan.schema().qualified_field_with_unqualified_name(field.name())?;
                projection.push(Expr::Column(Column::from((qualifier, field))));
            }
        }
        let at = projection.len();
        projection.push(Expr::Column(Column::new_unqualified(ROW_ID)));
        let hits = self.collect_plan(LogicalPlanBuilder::from(plan).project(projection)?.build()?).await?;
        let row_ids = u64_values(&hits, at);
        let count = row_ids.len() as u64;
        let rows = match keep {
            true => hits
                .iter()
                .map(|b| conform(&b.project(&(0..at).collect::<Vec<_>>())?, &meta.schema, name))
                .collect::<Result<Vec<_>>>()?,
            false => Vec::new(),
        };
        let segments = self.remove_rows(meta, row_ids)?;
        self.set_table(name, meta.with_segments(segments))?;
        Ok(Written { count, rows })
    }

    /// UPDATE of table `name` (now `meta`): `input` projects the new
    /// versions of the rows it changes.
    async fn update(
        &self,
        name: &str,
        meta: &Arc<TableMeta>,
        input: &LogicalPlan,
        table: &TableReference,
        keep: bool,
    ) -> Result<Written> {
        let LogicalPlan::Projection(projection) = input else {
            return Err(Error::internal("UPDATE plan does not start with a projection"));
        };
        let input = replace_scan(&projection.input, table, self.row_id_source(meta))?;
        let mut exprs = projection.expr.clone();
        // Qualified as the scan gives it: unqualified, a rewrite that
        // qualifies it (unnesting a correlated subquery in SET) changed
        // the projection's schema and failed DataFusion's checks.
        let (qualifier, field) = input.schema().qualified_field_with_unqualified_name(ROW_ID)?;
        exprs.push(Expr::Column(Column::from((qualifier, field))));
        let plan = LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(input))?);
        let updated = self.collect_plan(plan).await?;
        let id_column = projection.expr.len();
        let row_ids = u64_values(&updated, id_column);
        let count = row_ids.len() as u64;
        // The new versions of the rows, in table column order.
        let out_schema = projection.schema.as_arrow();
        let mut writer =
            TableWriter::new(self.core.dir(), meta.schema.clone()).with_compression(meta.constraints.compression);
        let mut rows = Vec::new();
        for batch in &updated {
            let columns = meta
                .schema
                .fields()
                .iter()
                .map(|f| {
                    out_schema
                        .index_of(f.name())
                        .map(|i| batch.column(i).clone())
                        .map_err(|_| Error::internal(format!("UPDATE lost column '{}'", f.name())))
                })
                .collect::<Result<Vec<ArrayRef>>>()?;
            let shaped = RecordBatch::try_new_with_options(
                Arc::new(Schema::new(
                    meta.schema
                        .fields()
                        .iter()
                        .zip(&columns)
                        .map(|(f, c)| Field::new(f.name(), c.data_type().clone(), true))
                        .collect::<Vec<_>>(),
                )),
                columns,
                &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
            )?;
            let conformed = conform(&shaped, &meta.schema, name)?;
            if keep {
                rows.push(conformed.clone());
            }
            writer.push(conformed)?;
        }
        let (added, files) = writer.finish()?;
        self.record_files(files);
        let mut segments = self.remove_rows(meta, row_ids)?;
        segments.extend(added);
        self.set_table(name, meta.with_segments(segments))?;
        Ok(Written { count, rows })
    }

    /// The table `meta` with a row-id column, as a plan source.
    pub(crate) fn row_id_source(&self, meta: &Arc<TableMeta>) -> Arc<dyn TableSource> {
        provider_as_source(Arc::new(SegmentTable::new(meta.clone(), self.core.store.clone()).with_row_ids(ROW_ID)))
    }

    /// Makes table `name` (now `meta`) lose the rows `row_ids` and gain
    /// `new_rows` (shaped as the table, cast to its types), in one write;
    /// the rows it gained, in the table's types.
    pub(crate) async fn replace_rows(
        &self,
        name: &str,
        meta: &Arc<TableMeta>,
        row_ids: Vec<u64>,
        new_rows: Vec<RecordBatch>,
    ) -> Result<Vec<RecordBatch>> {
        let mut segments = self.remove_rows(meta, row_ids)?;
        let new_rows = new_rows.iter().map(|b| conform(b, &meta.schema, name)).collect::<Result<Vec<_>>>()?;
        segments.extend(self.store_batches(name, meta, new_rows.clone()).await?);
        self.set_table(name, meta.with_segments(segments))?;
        Ok(new_rows)
    }

    /// Stores `rows` (in the table's types) as new segments of table `name`.
    async fn store_batches(&self, name: &str, meta: &TableMeta, rows: Vec<RecordBatch>) -> Result<Vec<SegmentMeta>> {
        let source = MemTable::try_new(meta.schema.clone(), vec![rows])?;
        let plan = LogicalPlanBuilder::scan("changed_rows", provider_as_source(Arc::new(source)), None)?.build()?;
        self.store_rows(plan, &meta.schema, name, &meta.constraints).await
    }

    /// The segments of `meta` without the rows `row_ids`: marked deleted in
    /// their segments (see `storage::deleted`), or, where the marks would grow
    /// too many, the segment rewritten without them.
    pub(crate) fn remove_rows(&self, meta: &TableMeta, row_ids: Vec<u64>) -> Result<Vec<SegmentMeta>> {
        let mut by_segment: HashMap<usize, Vec<u64>> = HashMap::new();
        for id in row_ids {
            let (seg, row) = SegmentTable::split_row_id(id);
            by_segment.entry(seg).or_default().push(row as u64);
        }
        let mut segments = Vec::with_capacity(meta.segments.len());
        for (i, seg) in meta.segments.iter().enumerate() {
            let Some(rows) = by_segment.remove(&i) else {
                segments.push(seg.clone());
                continue;
            };
            let deleted = seg.deleted.union(&DeletedRows::of(rows));
            // A segment all of whose rows are deleted stays as such until the
            // commit drops it: so the commit knows its rows were deleted, not
            // moved, also if another compacted it meanwhile (see `storage::rebase`).
            // Rows kept in the manifest are left to compaction, which merges
            // small segments anyway: rewritten here, a commit that compacted
            // them meanwhile would make this one's change a conflict.
            let few =
                deleted.len() as f64 <= REWRITE_FRACTION * seg.rows as f64 && deleted.ranges() <= max_ranges(seg.rows);
            if few || seg.inline.is_some() || deleted.len() >= seg.rows {
                segments.push(SegmentMeta { deleted, ..seg.clone() });
                continue;
            }
            let view = self.core.store.map(meta, seg)?;
            let all = view.all_batches(None)?;
            let all = concat_batches(&all.first().map_or(meta.schema.clone(), |b| b.schema()), &all)?;
            let kept = live_rows(&all, &deleted, 0, &meta.schema)?;
            let mut one =
                TableWriter::new(self.core.dir(), meta.schema.clone()).with_compression(meta.constraints.compression);
            one.push(kept)?;
            let (mut written, files) = one.finish()?;
            self.record_files(files);
            if let [one] = written.as_mut_slice() {
                one.origin = origins([(seg, &deleted)]);
            }
            segments.extend(written);
        }
        limit_origins(&mut segments);
        Ok(segments)
    }
}
