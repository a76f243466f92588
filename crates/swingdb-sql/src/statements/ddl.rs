//! CREATE and DROP TABLE, and storing Python data as a table (passed by name,
//! never pasted into SQL). ALTER TABLE is [`super::alter`].

use super::Executor;
use super::Output;
use crate::frontend::names::table_name;
use crate::frontend::prepare::{check_cluster_columns, default_compression};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::Constraint;
use datafusion::datasource::{provider_as_source, TableProvider};
use datafusion::logical_expr::{CreateMemoryTable, DropTable, LogicalPlan, LogicalPlanBuilder};
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;
use swingdb_storage::error::{Error, Result};
use swingdb_storage::keys::foreign::referencing;
use swingdb_storage::{Constraints, TableMeta};

fn already_exists(name: &str) -> Error {
    Error::programming(format!(
        "table '{name}' already exists; use CREATE OR REPLACE TABLE, CREATE TABLE IF NOT EXISTS, or DROP TABLE first"
    ))
}

/// How a column of type `data_type` is stored: view types as plain ones,
/// DECIMALs of 32 and 64 bits in 128. DataFusion 55 computes on 128-bit
/// DECIMAL faster (TPC-H lineitem in memory, this machine: Q1 12 % and Q6
/// 33 % slower with its DECIMAL(15,2) columns held in 64 bits) and every
/// function of it takes that width.
fn storage_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) => DataType::Decimal128(*p, *s),
        other => other.clone(),
    }
}

/// Schema for a new table: no field metadata but an ENUM type's, view
/// types stored as plain ones.
fn storage_schema(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema.fields().iter().map(|f| storage_field(f, f.is_nullable())).collect();
    Arc::new(Schema::new(fields))
}

/// A column of a new table like `field` (see [`storage_schema`]).
pub(crate) fn storage_field(field: &Field, nullable: bool) -> Field {
    match EnumType::of_field(field) {
        Some(enum_type) => enum_type.field(field.name(), nullable),
        None => Field::new(field.name(), storage_type(field.data_type()), nullable),
    }
}

/// The constraints of a new table: its keys, from the plan, added to `rules`
/// (its defaults and checks, from [`crate::frontend::prepare::take_column_rules`]).
fn constraints(create: &CreateMemoryTable, rules: Constraints) -> Result<Constraints> {
    let schema = create.input.schema();
    let names = |indices: &[usize]| indices.iter().map(|&i| schema.field(i).name().clone()).collect::<Vec<_>>();
    let mut out = rules;
    for constraint in create.constraints.iter() {
        match constraint {
            Constraint::PrimaryKey(indices) if out.primary_key.is_none() => out.primary_key = Some(names(indices)),
            Constraint::PrimaryKey(_) => {
                return Err(Error::programming(format!("table '{}' has more than one PRIMARY KEY", create.name)))
            }
            Constraint::Unique(indices) => out.unique.push(names(indices)),
        }
    }
    Ok(out)
}

impl Executor {
    /// `CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name (columns) | AS query`;
    /// `rules` are its defaults and checks (see [`crate::frontend::prepare::take_column_rules`]).
    pub(crate) async fn create_table(&self, create: CreateMemoryTable, rules: Constraints) -> Result<Output> {
        let name = table_name(&create.name, &self.own)?;
        let existing = self.tables.lock().get(&name).cloned();
        if let Some(other) = existing.as_ref().filter(|t| !t.is_table()) {
            return Err(other.name_taken(&name, "table"));
        }
        let exists = existing.is_some();
        if exists && create.if_not_exists {
            return Ok(Output::Empty);
        }
        if exists && !create.or_replace {
            return Err(already_exists(&name));
        }
        let mut constraints = constraints(&create, rules)?;
        self.resolve_foreign_keys(&name, &mut constraints, create.input.schema().as_arrow())?;
        let schema = storage_schema(create.input.schema().as_arrow());
        check_cluster_columns(&name, &constraints, &schema)?;
        for column in constraints.identity.keys() {
            let data_type = schema.field_with_name(column).map(|f| f.data_type().clone()).ok();
            if !data_type.as_ref().is_some_and(|t| t.is_integer()) {
                return Err(Error::programming(format!(
                    "identity column '{column}' must have an integer type, not {}",
                    data_type.map_or("none".into(), |t| t.to_string())
                )));
            }
        }
        // Key and identity columns are NOT NULL. Columns declared with their
        // types keep the NOT NULL they were declared with; the columns of
        // `CREATE TABLE ... AS SELECT` are nullable whatever the query could
        // hold (a literal, range()'s values), as in DuckDB and PostgreSQL.
        let declared = matches!(create.input.as_ref(), LogicalPlan::EmptyRelation(e) if !e.produce_one_row);
        let not_null = |f: &Field| {
            constraints.primary_key.iter().flatten().chain(constraints.identity.keys()).any(|c| c == f.name())
        };
        let nullable = |f: &Field| (f.is_nullable() || !declared) && !not_null(f);
        let schema =
            Arc::new(Schema::new(schema.fields().iter().map(|f| storage_field(f, nullable(f))).collect::<Vec<_>>()));
        let segments = self.store_rows(create.input.as_ref().clone(), &schema, &name, &constraints).await?;
        self.set_table(&name, TableMeta { constraints, ..TableMeta::table(schema, segments, 0) })?;
        Ok(Output::Empty)
    }

    /// Names the referenced columns of the FOREIGN KEYs of new table `name`
    /// that did not (its parent's PRIMARY KEY) and checks that each references
    /// a key of an existing table (or of `name` itself) with as many columns.
    pub(crate) fn resolve_foreign_keys(
        &self,
        name: &str,
        constraints: &mut Constraints,
        schema: &Schema,
    ) -> Result<()> {
        let tables = self.tables.lock();
        let own = constraints.clone();
        for fk in constraints.foreign_keys.iter_mut() {
            let parent = if fk.parent == name {
                own.clone()
            } else {
                match tables.get(&fk.parent) {
                    Some(t) if t.is_table() => t.constraints.clone(),
                    _ => {
                        return Err(Error::programming(format!(
                            "{} of table '{name}': table '{}' does not exist",
                            fk.sql(),
                            fk.parent
                        )))
                    }
                }
            };
            if fk.parent_columns.is_empty() {
                fk.parent_columns = parent.primary_key.clone().ok_or_else(|| {
                    Error::programming(format!(
                        "{} of table '{name}': table '{}' has no PRIMARY KEY; name the referenced columns",
                        fk.sql(),
                        fk.parent
                    ))
                })?;
            }
            if !parent.keys().any(|(_, columns)| columns == fk.parent_columns.as_slice()) {
                return Err(Error::programming(format!(
                    "{} of table '{name}': ({}) is not a PRIMARY KEY or UNIQUE key of table '{}'",
                    fk.sql(),
                    fk.parent_columns.join(", "),
                    fk.parent
                )));
            }
            if fk.columns.len() != fk.parent_columns.len() || fk.columns.iter().any(|c| schema.index_of(c).is_err()) {
                return Err(Error::programming(format!("{} of table '{name}': the columns do not match", fk.sql())));
            }
        }
        Ok(())
    }

    /// `DROP TABLE [IF EXISTS] name`.
    pub(crate) fn drop_table(&self, drop: &DropTable) -> Result<Output> {
        let name = table_name(&drop.name, &self.own)?;
        let mut tables = self.tables.lock();
        if let Some(other) = tables.get(&name).filter(|t| !t.is_table()) {
            return Err(other.not_a(&name, "table"));
        }
        if let Some((child, _, fk)) = referencing(&tables, &name).find(|(child, _, _)| **child != name) {
            return Err(Error::programming(format!(
                "table '{name}' is referenced by {} of table '{child}'; drop that table first",
                fk.sql()
            )));
        }
        let removed = tables.remove(&name);
        if removed.is_none() && !drop.if_exists {
            return Err(Error::programming(format!(
                "table '{name}' does not exist (use DROP TABLE IF EXISTS to ignore)"
            )));
        }
        Ok(Output::Empty)
    }

    /// Stores the rows of `source` as the new table `name`.
    pub async fn create_table_from(&self, name: &str, source: Arc<dyn TableProvider>) -> Result<Output> {
        if self.tables.lock().contains_key(name) {
            return Err(already_exists(name));
        }
        let schema = storage_schema(&source.schema());
        let plan = LogicalPlanBuilder::scan("source", provider_as_source(source), None)?.build()?;
        let compression = default_compression(self.ctx.state().config_options());
        let constraints = Constraints { compression, ..Default::default() };
        let segments = self.store_rows(plan, &schema, name, &constraints).await?;
        let rows = segments.iter().map(|s| s.rows).sum();
        self.set_table(name, TableMeta { constraints, ..TableMeta::table(schema, segments, 0) })?;
        Ok(Output::Count(rows))
    }

    /// Appends the rows of `source` to table `name`, matching columns by position.
    pub async fn append_from(&self, name: &str, source: Arc<dyn TableProvider>) -> Result<Output> {
        let meta = self.table(name)?;
        let plan = LogicalPlanBuilder::scan("source", provider_as_source(source), None)?.build()?;
        let added = self.store_rows(plan, &meta.schema, name, &meta.constraints).await?;
        let rows = added.iter().map(|s| s.rows).sum();
        let mut segments = meta.segments.clone();
        segments.extend(added);
        self.set_table(name, meta.with_segments(segments))?;
        Ok(Output::Count(rows))
    }
}
