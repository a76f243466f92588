//! Statements about the connection rather than its data, recognized before
//! a statement is routed: BEGIN, COMMIT, ROLLBACK, ATTACH (a database or a
//! snapshot) and DETACH; and which attached database a statement changes.

use crate::frontend::dialect::text::SNAPSHOT_FUNCTION;
use crate::frontend::parse::identifier;
use crate::{CATALOG, SCHEMA, TEMP};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    AttachDuckDBDatabaseOption, CopySource, Expr, FromTable, FunctionArg, FunctionArgExpr, FunctionArguments,
    ObjectName, ObjectType, Statement as SqlStatement, TableFactor, TableObject, TableWithJoins, Value,
};
use std::path::Path;
use swingdb_storage::error::{Error, ErrorKind, Result};

/// A statement about the connection (see the module doc).
pub enum Control {
    /// `BEGIN` / `START TRANSACTION`.
    Begin,
    /// `COMMIT` (true) or `ROLLBACK` (false).
    End {
        /// COMMIT (true) or ROLLBACK (false).
        commit: bool,
    },
    /// `ATTACH 'path' [AS alias] ...` of a database.
    AttachDatabase(AttachRequest),
    /// `ATTACH SNAPSHOT 'name' AS alias`.
    AttachSnapshot {
        /// The snapshot's name.
        name: String,
        /// The alias, as written.
        alias: String,
    },
    /// `DETACH [IF EXISTS] alias`.
    Detach {
        /// The alias as an identifier (case-folded unless quoted).
        alias: String,
        /// The alias as written (snapshots are attached under it).
        written: String,
        /// `IF EXISTS`.
        if_exists: bool,
    },
}

impl Control {
    /// What `statement` asks of the connection, if it is such a statement.
    pub fn recognize(statement: &DFStatement) -> Result<Option<Self>> {
        let DFStatement::Statement(s) = statement else { return Ok(None) };
        Ok(Some(match s.as_ref() {
            SqlStatement::StartTransaction { .. } => Self::Begin,
            SqlStatement::Commit { .. } => Self::End { commit: true },
            SqlStatement::Rollback { .. } => Self::End { commit: false },
            SqlStatement::AttachDatabase { .. } | SqlStatement::AttachDuckDBDatabase { .. } => {
                match AttachRequest::from_statement(s)? {
                    Some(request) => Self::AttachDatabase(request),
                    None => match s.as_ref() {
                        SqlStatement::AttachDatabase { schema_name: alias, database_file_name: file, .. } => {
                            let name = snapshot_name(file).ok_or_else(|| {
                                Error::programming(format!(
                                    "ATTACH {file} is not supported; attach a database by its path, ATTACH 'path' AS \
                                     {alias}, or a snapshot shared by another process, ATTACH SNAPSHOT 'name' AS {alias}"
                                ))
                            })?;
                            Self::AttachSnapshot { name, alias: alias.value.clone() }
                        }
                        _ => return Err(Error::internal("an ATTACH statement of no known kind")),
                    },
                }
            }
            SqlStatement::DetachDuckDBDatabase { database_alias, if_exists, .. } => Self::Detach {
                alias: identifier(database_alias),
                written: database_alias.value.clone(),
                if_exists: *if_exists,
            },
            _ => return Ok(None),
        }))
    }
}

/// Whether `alias` is taken by swingdb's own catalog or schemas.
pub fn is_reserved_alias(alias: &str) -> bool {
    alias == SCHEMA || alias == CATALOG || alias == TEMP || alias.eq_ignore_ascii_case("information_schema")
}

/// What an `ATTACH` statement asks for.
pub struct AttachRequest {
    /// The path as written.
    pub path: String,
    /// `AS alias`, if given.
    pub alias: Option<String>,
    /// `(READ_ONLY)`.
    pub read_only: bool,
    /// `IF NOT EXISTS`.
    pub if_not_exists: bool,
}

impl AttachRequest {
    /// The request an `ATTACH` statement makes, if it is one of a database
    /// (not `ATTACH SNAPSHOT`).
    fn from_statement(statement: &SqlStatement) -> Result<Option<Self>> {
        match statement {
            SqlStatement::AttachDatabase { schema_name, database_file_name: Expr::Value(v), .. } => match &v.value {
                Value::SingleQuotedString(path) => Ok(Some(Self {
                    path: path.clone(),
                    alias: Some(identifier(schema_name)),
                    read_only: false,
                    if_not_exists: false,
                })),
                _ => Ok(None),
            },
            SqlStatement::AttachDuckDBDatabase {
                if_not_exists, database_path, database_alias, attach_options, ..
            } => {
                let mut read_only = false;
                for option in attach_options {
                    match option {
                        AttachDuckDBDatabaseOption::ReadOnly(on) => read_only = on.unwrap_or(true),
                        AttachDuckDBDatabaseOption::Type(kind) if kind.value.eq_ignore_ascii_case("swingdb") => {}
                        AttachDuckDBDatabaseOption::Type(kind) => {
                            return Err(Error::new(
                                ErrorKind::NotSupported,
                                format!(
                                "ATTACH ... (TYPE {kind}): swingdb attaches swingdb databases only; to read another \
                                 system's tables, pipe them in (COPY ... FROM 'db://...', see docs/pipes.md) or read \
                                 its files with read_parquet / read_csv"
                            ),
                            ))
                        }
                    }
                }
                Ok(Some(Self {
                    path: database_path.value.clone(),
                    alias: database_alias.as_ref().map(identifier),
                    read_only,
                    if_not_exists: *if_not_exists,
                }))
            }
            _ => Ok(None),
        }
    }

    /// The alias: as given, else the file name without its extension
    /// (`'data/sales.swingdb'` is `sales`), as DuckDB names it.
    pub fn alias(&self) -> Result<String> {
        if let Some(alias) = &self.alias {
            return Ok(alias.clone());
        }
        let stem =
            Path::new(&self.path).file_stem().and_then(|s| s.to_str()).filter(|s| !s.is_empty() && *s != ":memory:");
        stem.map(str::to_string).ok_or_else(|| {
            Error::programming(format!("ATTACH '{}' needs a name: ATTACH '{}' AS name", self.path, self.path))
        })
    }
}

/// The first part of `name` when it names a table of another schema
/// (`o.t`, `swingdb.o.t`), which is the alias of an attached database if one
/// is attached under it.
fn schema_of(name: &ObjectName) -> Option<String> {
    let parts: Vec<String> = name.0.iter().map(|p| p.as_ident().map(identifier)).collect::<Option<_>>()?;
    match parts.as_slice() {
        [schema, _] => Some(schema.clone()),
        [catalog, schema, _] if catalog == CATALOG => Some(schema.clone()),
        _ => None,
    }
}

fn relation_name(table: &TableWithJoins) -> Option<&ObjectName> {
    match &table.relation {
        TableFactor::Table { name, .. } => Some(name),
        _ => None,
    }
}

/// The names of the tables (views, indexes' tables) `statement` changes, or
/// reads as a whole for COPY: the statement belongs to their database.
fn written_names(statement: &DFStatement) -> Vec<&ObjectName> {
    let DFStatement::Statement(s) = statement else { return Vec::new() };
    match s.as_ref() {
        SqlStatement::Insert(insert) => match &insert.table {
            TableObject::TableName(name) => vec![name],
            _ => Vec::new(),
        },
        SqlStatement::Update(update) => relation_name(&update.table).into_iter().collect(),
        SqlStatement::Delete(delete) => match &delete.from {
            FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => {
                from.iter().filter_map(relation_name).collect()
            }
        },
        SqlStatement::Merge(merge) => match &merge.table {
            TableFactor::Table { name, .. } => vec![name],
            _ => Vec::new(),
        },
        SqlStatement::CreateTable(create) => vec![&create.name],
        SqlStatement::CreateView(create) => vec![&create.name],
        SqlStatement::CreateIndex(create) => vec![&create.table_name],
        SqlStatement::AlterTable(alter) => vec![&alter.name],
        SqlStatement::Drop { object_type: ObjectType::Table | ObjectType::View, names, .. } => names.iter().collect(),
        SqlStatement::Truncate(truncate) => truncate.table_names.iter().map(|t| &t.name).collect(),
        SqlStatement::Copy { source: CopySource::Table { table_name, .. }, .. } => vec![table_name],
        _ => Vec::new(),
    }
}

/// The schemas named by the tables `statement` changes (or reads as a
/// whole for COPY), in order, for those named with one (`o.t`,
/// `swingdb.o.t`); `None` for a table named without.
pub fn written_schemas(statement: &DFStatement) -> Vec<Option<String>> {
    written_names(statement).into_iter().map(schema_of).collect()
}

/// The name in `swingdb_snapshot('name')`, which `ATTACH SNAPSHOT 'name'` parses into.
fn snapshot_name(expr: &Expr) -> Option<String> {
    let Expr::Function(call) = expr else { return None };
    if !call.name.to_string().eq_ignore_ascii_case(SNAPSHOT_FUNCTION) {
        return None;
    }
    let FunctionArguments::List(list) = &call.args else { return None };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] => match &v.value {
            Value::SingleQuotedString(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}
