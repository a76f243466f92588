//! ALTER TABLE: renaming the table or a column, adding and dropping columns,
//! changing a column's type, NOT NULL and DEFAULT.
//!
//! Adding and dropping columns rewrites no segment: the table's columns get
//! ids and each segment says which it holds (see [`swingdb_storage::manifest::ColumnIds`]),
//! so an added column reads as its DEFAULT (evaluated once, as PostgreSQL
//! does for a non-volatile default) in the rows it did not exist for. A
//! volatile DEFAULT (`random()`) and a type change rewrite the table's rows.
//! Every operation of one statement applies to a working copy of the table,
//! which replaces it only when all succeeded.
//!
//! Files and other processes: adding, dropping or renaming a column creates
//! and deletes no file; the new manifest lists the same segment files (with
//! the column ids they hold), so garbage collection, which keeps every file
//! a pinned manifest lists, sees no change, and a reader of an older version
//! reads those files with that version's columns. A rewrite (type change,
//! volatile DEFAULT) writes new segments like any UPDATE. Either way the
//! table changes, so a transaction of another connection or process that
//! wrote the same table meanwhile fails its commit with a ConflictError
//! (the commit's per-table version check) instead of mixing layouts.

use super::ddl::storage_field;
use super::Executor;
use super::Output;
use crate::catalog::checks::check_conditions;
use crate::catalog::table::SegmentTable;
use crate::frontend::dialect::enum_types;
use crate::frontend::names::object_name;
use crate::frontend::parse::identifier;
use crate::frontend::prepare::{
    check_cluster_columns, cluster_columns, compression_of, foreign_key, take_column_rules,
};
use datafusion::arrow::array::{Array, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::{Column, DFSchema};
use datafusion::datasource::provider_as_source;
use datafusion::logical_expr::{col, DdlStatement, Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::helpers::stmt_create_table::CreateTableBuilder;
use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, AlterColumnOperation, AlterTable, AlterTableOperation, ColumnDef, DataType as SqlType,
    Expr as SqlExpr, Ident, IndexColumn, ObjectName, RenameTableNameKind, Statement as SqlStatement, TableConstraint,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::ops::ControlFlow;
use std::sync::Arc;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::keys::foreign::referencing;
use swingdb_storage::{ForeignKey, SegmentStore, TableMeta};

/// What the refusal of an unsupported operation lists.
const SUPPORTED: &str = "RENAME TO, ADD COLUMN, DROP COLUMN, RENAME COLUMN, \
                         ADD PRIMARY KEY / UNIQUE / CHECK / FOREIGN KEY, ALTER COLUMN ... TYPE / SET NOT NULL / DROP NOT NULL / SET DEFAULT / DROP DEFAULT, \
                         CLUSTER BY (columns), DROP CLUSTERING KEY, SET (compression = ...)";

impl Executor {
    /// `ALTER TABLE [IF EXISTS] name operation, ...`.
    pub(crate) async fn alter_table(&self, alter: &AlterTable) -> Result<Output> {
        let name = object_name(&alter.name, &self.own)?;
        if let [AlterTableOperation::RenameTable { table_name }] = alter.operations.as_slice() {
            return self.rename_table(&name, table_name, alter.if_exists);
        }
        let exists = self.tables.lock().contains_key(&name);
        if !exists && alter.if_exists {
            return Ok(Output::Empty);
        }
        let mut meta = self.table(&name)?.as_ref().clone();
        for operation in &alter.operations {
            meta = self.apply(&name, meta, operation).await?;
        }
        self.set_table(&name, meta)?;
        Ok(Output::Empty)
    }

    /// The FOREIGN KEYs that reference table `name` (its own included), with their tables.
    fn referencing(&self, name: &str) -> Vec<(String, ForeignKey)> {
        let tables = self.tables.lock();
        referencing(&tables, name).map(|(child, _, fk)| (child.clone(), fk.clone())).collect()
    }

    fn rename_table(&self, old: &str, table_name: &RenameTableNameKind, if_exists: bool) -> Result<Output> {
        let new = match table_name {
            RenameTableNameKind::To(n) | RenameTableNameKind::As(n) => object_name(n, &self.own)?,
        };
        if let Some((child, fk)) = self.referencing(old).first() {
            return Err(Error::programming(format!(
                "cannot rename table '{old}': {} of table '{child}' references it; drop that table first",
                fk.sql()
            )));
        }
        let mut tables = self.tables.lock();
        let Some(meta) = tables.get(old).cloned() else {
            if if_exists {
                return Ok(Output::Empty);
            }
            return Err(Error::programming(format!("table '{old}' does not exist")));
        };
        if tables.contains_key(&new) {
            return Err(Error::programming(format!("cannot rename '{old}' to '{new}': table '{new}' already exists")));
        }
        tables.remove(old);
        // A renamed table is a new entry for conflict detection.
        tables.insert(new, Arc::new(meta.as_ref().clone()));
        Ok(Output::Empty)
    }

    /// `meta` (of table `name`) changed by one operation.
    async fn apply(&self, name: &str, meta: TableMeta, operation: &AlterTableOperation) -> Result<TableMeta> {
        match operation {
            AlterTableOperation::AddColumn { if_not_exists, column_def, column_position, .. } => {
                if column_position.is_some() {
                    return Err(not_supported(format!("ALTER TABLE {name} {operation}: columns are added last")));
                }
                if *if_not_exists && column_index(&meta, &identifier(&column_def.name)).is_ok() {
                    return Ok(meta);
                }
                self.add_column(name, meta, column_def).await
            }
            AlterTableOperation::DropColumn { column_names, if_exists, .. } => {
                let mut meta = meta;
                for column in column_names {
                    let column = identifier(column);
                    if *if_exists && column_index(&meta, &column).is_err() {
                        continue;
                    }
                    meta = drop_column(name, meta, &column)?;
                }
                Ok(meta)
            }
            AlterTableOperation::RenameColumn { old_column_name, new_column_name } => {
                let old = identifier(old_column_name);
                if let Some((child, fk)) =
                    self.referencing(name).into_iter().find(|(_, fk)| fk.parent_columns.contains(&old))
                {
                    return Err(Error::programming(format!(
                        "cannot rename column '{old}' of table '{name}': {} of table '{child}' references it",
                        fk.sql()
                    )));
                }
                rename_column(name, meta, &old, &identifier(new_column_name))
            }
            AlterTableOperation::AlterColumn { column_name, op } => {
                let column = identifier(column_name);
                let index = column_in(&meta, &column, name)?;
                match op {
                    AlterColumnOperation::SetNotNull => set_not_null(&self.core.store, name, meta, index),
                    AlterColumnOperation::DropNotNull => drop_not_null(name, meta, index),
                    AlterColumnOperation::SetDefault { value } => {
                        let mut meta = meta;
                        let data_type = meta.schema.field(index).data_type().clone();
                        self.default_expr(&value.to_string(), &data_type).map_err(|e| {
                            Error::programming(format!("DEFAULT {value} for column '{column}': {}", e.message()))
                        })?;
                        meta.constraints.defaults.insert(column, value.to_string());
                        Ok(meta)
                    }
                    AlterColumnOperation::DropDefault => {
                        let mut meta = meta;
                        meta.constraints.defaults.remove(&column);
                        Ok(meta)
                    }
                    AlterColumnOperation::SetDataType { data_type, using, .. } => {
                        self.set_type(name, meta, index, data_type, using.as_ref()).await
                    }
                    AlterColumnOperation::AddGenerated { .. } => Err(not_supported(format!(
                        "ALTER TABLE {name} ALTER COLUMN {column} {op}: identity columns are not supported yet"
                    ))),
                }
            }
            AlterTableOperation::AddConstraint { constraint, .. } => self.add_constraint(name, meta, constraint),
            AlterTableOperation::ClusterBy { exprs } => {
                let mut meta = meta;
                meta.constraints.cluster_by = cluster_columns(exprs)?;
                check_cluster_columns(name, &meta.constraints, &meta.schema)?;
                // The rows already there are sorted too (rewritten by the new key).
                self.rewrite_rows(name, &meta).await
            }
            AlterTableOperation::SetOptionsParens { options } => {
                // Rewritten now, as by CLUSTER BY: its size changes at once.
                let mut meta = meta;
                meta.constraints.compression = compression_of(options)?;
                self.rewrite_rows(name, &meta).await
            }
            AlterTableOperation::DropClusteringKey => {
                let mut meta = meta;
                meta.constraints.cluster_by.clear();
                Ok(meta)
            }
            AlterTableOperation::RenameTable { .. } => Err(not_supported(
                "ALTER TABLE ... RENAME TO cannot be combined with other changes; run it alone".to_string(),
            )),
            other => Err(not_supported(format!("ALTER TABLE {name} {other} is not supported; supported: {SUPPORTED}"))),
        }
    }

    /// `ADD [CONSTRAINT name] PRIMARY KEY (...) | UNIQUE (...) | CHECK (...) |
    /// FOREIGN KEY (...) REFERENCES ...`, checked against every row already there (the key indexes of a new key
    /// are built from all segments when the table is set).
    fn add_constraint(&self, name: &str, mut meta: TableMeta, constraint: &TableConstraint) -> Result<TableMeta> {
        let columns = |columns: &[IndexColumn]| -> Result<Vec<String>> {
            columns
                .iter()
                .map(|c| match &c.column.expr {
                    SqlExpr::Identifier(ident) => {
                        let column = identifier(ident);
                        column_in(&meta, &column, name)?;
                        Ok(column)
                    }
                    other => Err(not_supported(format!(
                        "ALTER TABLE {name} ADD {constraint}: keys on expressions ({other}) are not supported"
                    ))),
                })
                .collect()
        };
        match constraint {
            TableConstraint::PrimaryKey(pk) => {
                let key = columns(&pk.columns)?;
                if let Some(existing) = &meta.constraints.primary_key {
                    return Err(Error::programming(format!(
                        "table '{name}' already has PRIMARY KEY ({})",
                        existing.join(", ")
                    )));
                }
                for column in &key {
                    let index = column_in(&meta, column, name)?;
                    meta = set_not_null(&self.core.store, name, meta, index)?;
                }
                meta.constraints.primary_key = Some(key);
                Ok(meta)
            }
            TableConstraint::Unique(unique) => {
                let key = columns(&unique.columns)?;
                match &unique.name {
                    Some(index) => {
                        let index = identifier(index);
                        if meta.constraints.unique_indexes.contains_key(&index)
                            || meta.constraints.indexes.contains_key(&index)
                        {
                            return Err(Error::programming(format!(
                                "index '{index}' already exists on table '{name}'"
                            )));
                        }
                        meta.constraints.unique_indexes.insert(index, key);
                    }
                    None => meta.constraints.unique.push(key),
                }
                Ok(meta)
            }
            TableConstraint::Check(check) => {
                let condition = check.expr.to_string();
                meta.constraints.checks.push(condition);
                // Every row is new to the condition.
                check_conditions(&self.core.store, &self.ctx.state(), name, None, &meta)?;
                Ok(meta)
            }
            TableConstraint::ForeignKey(fk) => {
                let mut declared = meta.constraints.clone();
                declared.foreign_keys = vec![foreign_key(fk, &fk.columns, &self.own)?];
                self.resolve_foreign_keys(name, &mut declared, &meta.schema)?;
                meta.constraints.foreign_keys.extend(declared.foreign_keys);
                // Every row is new to it.
                self.check_all_foreign_keys(name, &meta)?;
                Ok(meta)
            }
            other => Err(not_supported(format!("ALTER TABLE {name} ADD {other} is not supported"))),
        }
    }

    /// The column `column_def` planned as DataFusion plans a CREATE TABLE with
    /// it (its type, NOT NULL, keys), with its DEFAULT and CHECK conditions.
    async fn plan_column(&self, column_def: &ColumnDef) -> Result<(Field, swingdb_storage::Constraints)> {
        let create = CreateTableBuilder::new(ObjectName::from(vec![Ident::new("new_column")]))
            .columns(vec![column_def.clone()])
            .build();
        let mut statement = DFStatement::Statement(Box::new(SqlStatement::CreateTable(create)));
        let rules = take_column_rules(&mut statement, &self.own)?;
        let enum_columns = enum_types::resolve(&mut statement, &self.tables, &self.own)?;
        let plan = self.ctx.state().statement_to_plan(statement).await?;
        let plan = enum_types::typed_columns(plan, &enum_columns)?;
        let LogicalPlan::Ddl(DdlStatement::CreateMemoryTable(create)) = plan else {
            return Err(Error::internal("a column definition did not plan as a table"));
        };
        if !rules.identity.is_empty() {
            return Err(not_supported(format!(
                "ALTER TABLE ... ADD COLUMN {column_def}: identity columns can only be created with their table yet"
            )));
        }
        if !create.constraints.is_empty() {
            return Err(not_supported(format!(
                "ALTER TABLE ... ADD COLUMN {column_def}: keys cannot be added with a column yet; \
                 add the column, then ALTER TABLE ... ADD PRIMARY KEY or UNIQUE on it"
            )));
        }
        let field = create.input.schema().field(0);
        Ok((storage_field(field, field.is_nullable()), rules))
    }

    /// DEFAULT `sql` planned, in `data_type`.
    fn default_expr(&self, sql: &str, data_type: &DataType) -> Result<Expr> {
        let empty = DFSchema::empty();
        let expr = self.ctx.state().create_logical_expr(sql, &empty)?;
        Ok(expr.cast_to(data_type, &empty)?)
    }

    async fn add_column(&self, name: &str, meta: TableMeta, column_def: &ColumnDef) -> Result<TableMeta> {
        let (field, rules) = self.plan_column(column_def).await?;
        let column = field.name().clone();
        if column_index(&meta, &column).is_ok() {
            return Err(Error::programming(format!(
                "column '{column}' of table '{name}' already exists (use ADD COLUMN IF NOT EXISTS to ignore)"
            )));
        }
        let default = rules.defaults.get(&column).map(|sql| self.default_expr(sql, field.data_type())).transpose()?;
        let rows = meta.num_rows();
        let null_rows = || {
            Error::new(
                ErrorKind::Integrity,
                format!(
                    "column '{column}' cannot be added to table '{name}' as NOT NULL without a DEFAULT: its {rows} existing \
                     rows would hold NULL; add a DEFAULT, or add the column, fill it with UPDATE, then SET NOT NULL"
                ),
            )
        };
        let mut altered = match default {
            // Evaluated per row, as in PostgreSQL: the rows are rewritten with it.
            Some(expr) if expr.is_volatile() && rows > 0 => {
                let mut columns = column_exprs(&meta);
                columns.push(expr.alias(&column));
                let mut fields = meta.schema.fields().to_vec();
                fields.push(Arc::new(field.clone()));
                self.rewrite(name, &meta, Arc::new(Schema::new(fields)), columns).await?
            }
            Some(expr) => {
                let fill = self.evaluate_once(&expr).await?;
                if fill.is_none() && !field.is_nullable() && rows > 0 {
                    return Err(null_rows());
                }
                meta.add_column(field.clone(), fill)
            }
            None if !field.is_nullable() && rows > 0 => return Err(null_rows()),
            None => meta.add_column(field.clone(), None),
        };
        altered.constraints.defaults.extend(rules.defaults);
        if !rules.checks.is_empty() {
            altered.constraints.checks.extend(rules.checks);
            // Every existing row must pass the new CHECK, not only new ones.
            check_conditions(&self.core.store, &self.ctx.state(), name, None, &altered)?;
        }
        Ok(altered)
    }

    /// The value of a non-volatile DEFAULT, as text in its type (`None` for NULL).
    async fn evaluate_once(&self, expr: &Expr) -> Result<Option<String>> {
        let plan = LogicalPlanBuilder::empty(true).project(vec![expr.clone().alias("value")])?.build()?;
        let batches = self.collect_plan(plan).await?;
        let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) else {
            return Err(Error::internal("a DEFAULT evaluated to no row"));
        };
        let text = cast(batch.column(0), &DataType::Utf8)?;
        let text = text.as_any().downcast_ref::<StringArray>().expect("cast to Utf8");
        Ok(text.is_valid(0).then(|| text.value(0).to_string()))
    }

    /// `ALTER COLUMN c [SET DATA] TYPE t [USING expr]`: the table's rows
    /// rewritten with the column converted (a value that does not convert is
    /// an error and changes nothing).
    async fn set_type(
        &self,
        name: &str,
        meta: TableMeta,
        index: usize,
        data_type: &SqlType,
        using: Option<&SqlExpr>,
    ) -> Result<TableMeta> {
        let old = meta.schema.field(index).clone();
        let column_def =
            ColumnDef { name: Ident::with_quote('"', old.name()), data_type: data_type.clone(), options: Vec::new() };
        let (planned, _) = self.plan_column(&column_def).await?;
        let new_type = planned.data_type().clone();
        let schema = DFSchema::try_from_qualified_schema(name, &meta.schema)?;
        let source = match using {
            Some(using) => self.ctx.state().create_logical_expr(&using.to_string(), &schema)?,
            None => col(Column::new_unqualified(old.name())),
        };
        let mut columns = column_exprs(&meta);
        columns[index] = source.cast_to(&new_type, &schema)?.alias(old.name());
        let mut fields = meta.schema.fields().to_vec();
        fields[index] = Arc::new(Field::new(old.name(), new_type, old.is_nullable()));
        let rewritten = self.rewrite(name, &meta, Arc::new(Schema::new(fields)), columns).await?;
        if !rewritten.constraints.checks.is_empty() {
            check_conditions(&self.core.store, &self.ctx.state(), name, None, &rewritten)?;
        }
        Ok(rewritten)
    }

    /// Table `meta` with its rows written again as they are, as its
    /// constraints now say (sorted by its CLUSTER BY key, compressed so).
    async fn rewrite_rows(&self, name: &str, meta: &TableMeta) -> Result<TableMeta> {
        self.rewrite(name, meta, meta.schema.clone(), column_exprs(meta)).await
    }

    /// Table `meta` with its rows rewritten as `columns` (expressions over
    /// its columns), stored as `schema`; keys, defaults and checks are kept.
    async fn rewrite(&self, name: &str, meta: &TableMeta, schema: SchemaRef, columns: Vec<Expr>) -> Result<TableMeta> {
        let table = SegmentTable::new(Arc::new(meta.clone()), self.core.store.clone());
        let plan =
            LogicalPlanBuilder::scan(name, provider_as_source(Arc::new(table)), None)?.project(columns)?.build()?;
        let segments = self.store_rows(plan, &schema, name, &meta.constraints).await?;
        Ok(TableMeta { constraints: meta.constraints.clone(), ..TableMeta::table(schema, segments, meta.modified) })
    }
}

/// The columns of `meta`, as expressions reading them.
fn column_exprs(meta: &TableMeta) -> Vec<Expr> {
    meta.schema.fields().iter().map(|f| col(Column::new_unqualified(f.name()))).collect()
}

fn not_supported(message: String) -> Error {
    Error::new(ErrorKind::NotSupported, message)
}

/// The position of column `column` in `meta`.
fn column_index(meta: &TableMeta, column: &str) -> Result<usize> {
    meta.schema.index_of(column).map_err(|_| Error::programming(format!("column '{column}' does not exist")))
}

/// Column `column` of `meta` (table `table`), or an error naming both.
fn column_in(meta: &TableMeta, column: &str, table: &str) -> Result<usize> {
    column_index(meta, column).map_err(|e| Error::new(e.kind(), format!("{} in table '{table}'", e.message())))
}

/// A stored CHECK condition parsed back.
fn parse_check(condition: &str) -> Result<SqlExpr> {
    Parser::new(&GenericDialect {})
        .try_with_sql(condition)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| Error::internal(format!("stored CHECK ({condition}) does not parse: {e}")))
}

/// The SQL names a CHECK condition reads (unqualified, folded as identifiers are).
fn check_columns(condition: &str) -> Vec<String> {
    let mut names = Vec::new();
    if let Ok(mut expr) = parse_check(condition) {
        let _ = visit_expressions_mut(&mut expr, |e| {
            match e {
                SqlExpr::Identifier(ident) => names.push(identifier(ident)),
                SqlExpr::CompoundIdentifier(parts) => names.extend(parts.last().map(identifier)),
                _ => {}
            }
            ControlFlow::<()>::Continue(())
        });
    }
    names
}

/// CHECK `condition` with column `old` called `new`.
fn rename_in_check(condition: &str, old: &str, new: &str) -> Result<String> {
    let mut expr = parse_check(condition)?;
    let _ = visit_expressions_mut(&mut expr, |e| {
        match e {
            SqlExpr::Identifier(ident) if identifier(ident) == old => *ident = Ident::with_quote('"', new),
            SqlExpr::CompoundIdentifier(parts) if parts.last().is_some_and(|p| identifier(p) == old) => {
                *parts.last_mut().expect("last") = Ident::with_quote('"', new)
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(expr.to_string())
}

fn drop_column(name: &str, meta: TableMeta, column: &str) -> Result<TableMeta> {
    let index = column_in(&meta, column, name)?;
    if meta.schema.fields().len() == 1 {
        return Err(Error::programming(format!(
            "cannot drop column '{column}': it is the only column of table '{name}'; use DROP TABLE"
        )));
    }
    if let Some((key, _)) = meta.constraints.keys().find(|(_, columns)| columns.iter().any(|c| c == column)) {
        return Err(Error::programming(format!("cannot drop column '{column}' of table '{name}': {key} uses it")));
    }
    if let Some(fk) = meta.constraints.foreign_keys.iter().find(|fk| fk.columns.iter().any(|c| c == column)) {
        return Err(Error::programming(format!(
            "cannot drop column '{column}' of table '{name}': {} uses it",
            fk.sql()
        )));
    }
    // A CHECK on this column alone goes with it (as in SQLite and
    // PostgreSQL); one that also reads other columns keeps it (as in SQLite).
    let reads = |check: &String| {
        let columns = check_columns(check);
        (columns.iter().any(|c| c == column), columns.iter().all(|c| c == column))
    };
    if let Some(check) = meta.constraints.checks.iter().find(|c| reads(c) == (true, false)) {
        return Err(Error::programming(format!(
            "cannot drop column '{column}' of table '{name}': CHECK ({check}) also reads other columns"
        )));
    }
    let mut altered = meta.drop_column(index);
    altered.constraints.defaults.remove(column);
    altered.constraints.identity.remove(column);
    // A plain index on the column goes with it (as in PostgreSQL).
    altered.constraints.indexes.retain(|_, columns| !columns.iter().any(|c| c == column));
    altered.constraints.checks.retain(|c| reads(c) != (true, true));
    // Rows sorted by (a, b) are still sorted by a: the key keeps the columns
    // before the dropped one.
    if let Some(at) = altered.constraints.cluster_by.iter().position(|c| c == column) {
        altered.constraints.cluster_by.truncate(at);
    }
    Ok(altered)
}

fn rename_column(name: &str, meta: TableMeta, old: &str, new: &str) -> Result<TableMeta> {
    let index = column_in(&meta, old, name)?;
    if column_index(&meta, new).is_ok() {
        return Err(Error::programming(format!(
            "cannot rename column '{old}' of table '{name}' to '{new}': '{new}' already exists"
        )));
    }
    let mut meta = meta;
    let mut fields = meta.schema.fields().to_vec();
    let field = meta.schema.field(index);
    fields[index] = Arc::new(Field::new(new, field.data_type().clone(), field.is_nullable()));
    meta.schema = Arc::new(Schema::new_with_metadata(fields, meta.schema.metadata().clone()));
    let constraints = &mut meta.constraints;
    let renamed =
        |columns: &mut Vec<String>| columns.iter_mut().filter(|c| *c == old).for_each(|c| *c = new.to_string());
    constraints.primary_key.iter_mut().for_each(renamed);
    constraints.unique.iter_mut().for_each(renamed);
    constraints.unique_indexes.values_mut().for_each(renamed);
    constraints.indexes.values_mut().for_each(renamed);
    renamed(&mut constraints.cluster_by);
    if let Some(default) = constraints.defaults.remove(old) {
        constraints.defaults.insert(new.to_string(), default);
    }
    if let Some(next) = constraints.identity.remove(old) {
        constraints.identity.insert(new.to_string(), next);
    }
    for fk in constraints.foreign_keys.iter_mut() {
        renamed(&mut fk.columns);
    }
    for check in constraints.checks.iter_mut() {
        *check = rename_in_check(check, old, new)?;
    }
    Ok(meta)
}

fn set_nullable(meta: TableMeta, index: usize, nullable: bool) -> TableMeta {
    let mut meta = meta;
    let mut fields = meta.schema.fields().to_vec();
    fields[index] = Arc::new(fields[index].as_ref().clone().with_nullable(nullable));
    meta.schema = Arc::new(Schema::new_with_metadata(fields, meta.schema.metadata().clone()));
    meta
}

/// `meta` with its column at `index` NOT NULL, once no row holds NULL there
/// (counted by the statistics; in segments with deleted rows, which the
/// statistics count too, by reading the column).
fn set_not_null(store: &SegmentStore, name: &str, meta: TableMeta, index: usize) -> Result<TableMeta> {
    let mut nulls = 0u64;
    for segment in &meta.segments {
        let counted = meta.column_stats(segment, index).map_or(0, |s| s.nulls);
        nulls += match counted {
            0 => 0,
            _ if segment.deleted.is_empty() => counted,
            _ => store
                .map(&meta, segment)?
                .batches(Some(&[index]))?
                .iter()
                .map(|b| b.column(0).null_count() as u64)
                .sum(),
        };
    }
    if nulls > 0 {
        return Err(Error::new(
            ErrorKind::Integrity,
            format!(
                "column '{}' of table '{name}' cannot be NOT NULL: {nulls} rows hold NULL; UPDATE them first",
                meta.schema.field(index).name()
            ),
        ));
    }
    Ok(set_nullable(meta, index, false))
}

fn drop_not_null(name: &str, meta: TableMeta, index: usize) -> Result<TableMeta> {
    let column = meta.schema.field(index).name();
    if let Some(key) = &meta.constraints.primary_key {
        if key.contains(column) {
            return Err(Error::programming(format!(
                "column '{column}' of table '{name}' is in its PRIMARY KEY ({}), which is NOT NULL",
                key.join(", ")
            )));
        }
    }
    Ok(set_nullable(meta, index, true))
}
