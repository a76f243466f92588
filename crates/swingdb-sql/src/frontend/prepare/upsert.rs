//! The conflict clause of an upsert (`INSERT ... ON CONFLICT`, `INSERT OR
//! IGNORE | REPLACE`, `REPLACE INTO`), taken off the statement so that
//! DataFusion plans a plain INSERT; `api` applies it to the rows (see its
//! `upsert.rs`).

use crate::frontend::parse::identifier;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, Assignment, AssignmentTarget, ConflictTarget, Expr as SqlExpr, Ident, OnConflictAction,
    OnInsert, SqliteOnConflict, Statement as SqlStatement,
};
use std::ops::ControlFlow;
use swingdb_storage::error::{Error, ErrorKind, Result};

/// What to do with a row whose key is already in the table. (One per
/// statement: its size does not matter.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Action {
    /// Keep the existing row (`DO NOTHING`, `OR IGNORE`).
    Ignore,
    /// Delete the existing row, insert the new one (`OR REPLACE`, `REPLACE INTO`).
    Replace,
    /// Change the existing row (`DO UPDATE SET column = value ... [WHERE condition]`).
    Update { set: Vec<(String, SqlExpr)>, only_if: Option<SqlExpr> },
}

/// An INSERT's conflict clause: the key it names (the primary key if none) and the action.
#[derive(Debug, Clone)]
pub(crate) struct Upsert {
    pub(crate) target: Option<Vec<String>>,
    pub(crate) action: Action,
}

/// Takes the conflict clause off an INSERT statement, returning it.
pub(crate) fn take_upsert(statement: &mut DFStatement) -> Result<Option<Upsert>> {
    let DFStatement::Statement(s) = statement else { return Ok(None) };
    let SqlStatement::Insert(insert) = s.as_mut() else { return Ok(None) };
    let action = match (insert.or.take(), insert.on.take(), std::mem::take(&mut insert.replace_into)) {
        (Some(SqliteOnConflict::Ignore), None, _) => Some(Upsert { target: None, action: Action::Ignore }),
        (Some(SqliteOnConflict::Replace), None, _) | (None, None, true) => {
            Some(Upsert { target: None, action: Action::Replace })
        }
        (Some(other), _, _) => {
            return Err(Error::new(
                ErrorKind::NotSupported,
                format!("INSERT OR {other} is not supported; use OR IGNORE or OR REPLACE"),
            ))
        }
        (None, Some(OnInsert::OnConflict(conflict)), _) => {
            let target = match conflict.conflict_target {
                None => None,
                Some(ConflictTarget::Columns(columns)) => Some(columns.iter().map(identifier).collect()),
                Some(ConflictTarget::OnConstraint(name)) => {
                    return Err(Error::new(
                        ErrorKind::NotSupported,
                        format!("ON CONFLICT ON CONSTRAINT {name}: name the key's columns instead"),
                    ))
                }
            };
            let action = match conflict.action {
                OnConflictAction::DoNothing => Action::Ignore,
                OnConflictAction::DoUpdate(update) => {
                    let set = update
                        .assignments
                        .into_iter()
                        .map(|a| Ok((assigned_column(&a)?, a.value)))
                        .collect::<Result<_>>()?;
                    Action::Update { set, only_if: update.selection }
                }
            };
            Some(Upsert { target, action })
        }
        (None, Some(OnInsert::DuplicateKeyUpdate(_)), _) => {
            return Err(Error::new(
                ErrorKind::NotSupported,
                "ON DUPLICATE KEY UPDATE is not supported; use ON CONFLICT (key) DO UPDATE SET ...",
            ))
        }
        (None, Some(other), _) => return Err(Error::new(ErrorKind::NotSupported, format!("{other} is not supported"))),
        (None, None, false) => None,
    };
    Ok(action)
}

/// The column a `SET column = value` assignment (of DO UPDATE or MERGE) writes.
pub(crate) fn assigned_column(assignment: &Assignment) -> Result<String> {
    match &assignment.target {
        AssignmentTarget::ColumnName(name) => match name.0.last().and_then(|p| p.as_ident()) {
            Some(ident) => Ok(identifier(ident)),
            None => Err(Error::programming(format!("cannot assign to {name}"))),
        },
        AssignmentTarget::Tuple(_) => {
            Err(Error::new(ErrorKind::NotSupported, "SET (a, b) = ... is not supported; assign each column"))
        }
    }
}

/// Qualifies the unqualified column names of a SET expression with `table`
/// (in `DO UPDATE`, a bare name is the existing row's column, as in PostgreSQL).
pub(crate) fn qualify(mut expr: SqlExpr, table: &str) -> SqlExpr {
    let _ = visit_expressions_mut(&mut expr, |e| {
        if let SqlExpr::Identifier(ident) = e {
            *e = SqlExpr::CompoundIdentifier(vec![Ident::with_quote('"', table), ident.clone()]);
        }
        ControlFlow::<()>::Continue(())
    });
    expr
}
