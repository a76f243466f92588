//! What a `CREATE TABLE` (or `ALTER TABLE ... ADD`) says about its columns
//! beyond their types, which DataFusion's plan cannot carry: DEFAULTs,
//! CHECKs, FOREIGN KEYs, identity columns and `CLUSTER BY`, taken off the
//! statement into the table's stored [`Constraints`].

use crate::frontend::names::object_name;
use crate::frontend::parse::identifier;
use datafusion::arrow::datatypes::Schema;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    ColumnOption, DataType as SqlType, Expr as SqlExpr, ForeignKeyConstraint, GeneratedAs, Ident, ReferentialAction,
    Statement as SqlStatement, TableConstraint, WrappedCollection,
};
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::{Constraints, ForeignKey};

/// What a `CREATE TABLE` statement says about its columns beyond their types
/// that DataFusion's plan cannot carry: its DEFAULT expressions and CHECK
/// conditions as SQL text (to be stored), and its identity columns
/// (`GENERATED ... AS IDENTITY`, `IDENTITY`, `AUTOINCREMENT`, `AUTO_INCREMENT`,
/// `SERIAL`, whose type becomes the integer it stands for). Those options
/// are taken off the statement, which DataFusion would refuse; computed
/// columns (`GENERATED ALWAYS AS (expr)`) are refused rather than left NULL.
pub(crate) fn take_column_rules(statement: &mut DFStatement, own: &str) -> Result<Constraints> {
    let mut rules = Constraints::default();
    let DFStatement::Statement(s) = statement else { return Ok(rules) };
    let SqlStatement::CreateTable(create) = s.as_mut() else { return Ok(rules) };
    for column in &mut create.columns {
        let name = identifier(&column.name);
        let mut identity = false;
        if let Some(integer) = serial_type(&column.data_type) {
            column.data_type = integer;
            identity = true;
        }
        for option in &column.options {
            match &option.option {
                ColumnOption::Default(e) => {
                    rules.defaults.insert(name.clone(), e.to_string());
                }
                ColumnOption::Check(c) => rules.checks.push(c.expr.to_string()),
                ColumnOption::Generated { generation_expr: Some(_), .. } => return Err(computed_column(&column.name)),
                ColumnOption::ForeignKey(fk) => {
                    rules.foreign_keys.push(foreign_key(fk, std::slice::from_ref(&column.name), own)?)
                }
                option if is_identity(option) => identity = true,
                _ => {}
            }
        }
        column.options.retain(|o| {
            !matches!(o.option, ColumnOption::Check(_) | ColumnOption::ForeignKey(_)) && !is_identity(&o.option)
        });
        if identity {
            if rules.defaults.contains_key(&name) {
                return Err(Error::programming(format!("column '{name}' cannot have both a DEFAULT and an identity")));
            }
            rules.identity.insert(name, 1);
        }
    }
    if let Some(columns) = create.cluster_by.take() {
        let (WrappedCollection::NoWrapping(exprs) | WrappedCollection::Parentheses(exprs)) = columns;
        rules.cluster_by = cluster_columns(&exprs)?;
    }
    let mut refused = None;
    create.constraints.retain(|c| match c {
        TableConstraint::Check(c) => {
            rules.checks.push(c.expr.to_string());
            false
        }
        TableConstraint::ForeignKey(fk) => {
            match foreign_key(fk, &fk.columns, own) {
                Ok(fk) => rules.foreign_keys.push(fk),
                Err(e) => refused = refused.take().or(Some(e)),
            }
            false
        }
        TableConstraint::Index(_)
        | TableConstraint::FulltextOrSpatial(_)
        | TableConstraint::PrimaryKeyUsingIndex(_)
        | TableConstraint::UniqueUsingIndex(_) => {
            let message = format!("{c}: indexes inside CREATE TABLE are not supported; declare the key as PRIMARY KEY or UNIQUE (columns)");
            refused = refused.take().or(Some(Error::new(ErrorKind::NotSupported, message)));
            false
        }
        _ => true,
    });
    match refused {
        Some(e) => Err(e),
        None => Ok(rules),
    }
}

/// The column names of a `CLUSTER BY` list: `a, b` or `(a, b)` (parsed as
/// one tuple), each a plain column name.
pub(crate) fn cluster_columns(exprs: &[SqlExpr]) -> Result<Vec<String>> {
    let mut columns = Vec::new();
    for expr in exprs {
        match expr {
            SqlExpr::Identifier(ident) => columns.push(identifier(ident)),
            SqlExpr::Tuple(inner) => columns.extend(cluster_columns(inner)?),
            SqlExpr::Nested(inner) => columns.extend(cluster_columns(std::slice::from_ref(inner.as_ref()))?),
            other => {
                return Err(Error::new(
                    ErrorKind::NotSupported,
                    format!("CLUSTER BY {other}: only column names are supported (cluster by an expression's value by storing it in a column)"),
                ))
            }
        }
    }
    for (i, column) in columns.iter().enumerate() {
        if columns[..i].contains(column) {
            return Err(Error::programming(format!("CLUSTER BY names column '{column}' twice")));
        }
    }
    Ok(columns)
}

/// Checks that every `CLUSTER BY` column of `constraints` is a column of `schema`.
pub(crate) fn check_cluster_columns(name: &str, constraints: &Constraints, schema: &Schema) -> Result<()> {
    match constraints.cluster_by.iter().find(|c| schema.index_of(c).is_err()) {
        Some(missing) => {
            Err(Error::programming(format!("CLUSTER BY column '{missing}' is not a column of table '{name}'")))
        }
        None => Ok(()),
    }
}

/// A FOREIGN KEY of `columns` as stored; its referenced columns are left
/// empty when not named (the parent's PRIMARY KEY, found at CREATE).
pub(crate) fn foreign_key(fk: &ForeignKeyConstraint, columns: &[Ident], own: &str) -> Result<ForeignKey> {
    let restrict = |action: &Option<ReferentialAction>| {
        matches!(action, None | Some(ReferentialAction::Restrict | ReferentialAction::NoAction))
    };
    if !restrict(&fk.on_delete) || !restrict(&fk.on_update) || fk.characteristics.is_some() {
        let shown = ForeignKeyConstraint { columns: columns.to_vec(), ..fk.clone() };
        return Err(Error::new(
            ErrorKind::NotSupported,
            format!("{shown}: only RESTRICT / NO ACTION foreign keys, checked at each statement, are supported yet"),
        ));
    }
    Ok(ForeignKey {
        columns: columns.iter().map(identifier).collect(),
        parent: object_name(&fk.foreign_table, own)?,
        parent_columns: fk.referred_columns.iter().map(identifier).collect(),
    })
}

/// Whether a column option makes its column an identity column.
pub(crate) fn is_identity(option: &ColumnOption) -> bool {
    match option {
        ColumnOption::Generated {
            generation_expr: None,
            generated_as: GeneratedAs::Always | GeneratedAs::ByDefault,
            ..
        } => true,
        ColumnOption::Identity(_) => true,
        ColumnOption::DialectSpecific(tokens) => tokens.iter().any(|t| {
            let word = t.to_string();
            word.eq_ignore_ascii_case("AUTOINCREMENT") || word.eq_ignore_ascii_case("AUTO_INCREMENT")
        }),
        _ => false,
    }
}

/// The integer type PostgreSQL's `SMALLSERIAL`, `SERIAL` or `BIGSERIAL` stands for.
pub(crate) fn serial_type(data_type: &SqlType) -> Option<SqlType> {
    let SqlType::Custom(name, modifiers) = data_type else { return None };
    if !modifiers.is_empty() || name.0.len() != 1 {
        return None;
    }
    let word = name.0[0].as_ident()?.value.to_ascii_lowercase();
    match word.as_str() {
        "smallserial" | "serial2" => Some(SqlType::SmallInt(None)),
        "serial" | "serial4" => Some(SqlType::Integer(None)),
        "bigserial" | "serial8" => Some(SqlType::BigInt(None)),
        _ => None,
    }
}

pub(crate) fn computed_column(name: &Ident) -> Error {
    Error::new(
        ErrorKind::NotSupported,
        format!("column '{name}': computed columns (GENERATED ALWAYS AS (expr)) are not supported yet; use a view that computes it"),
    )
}
