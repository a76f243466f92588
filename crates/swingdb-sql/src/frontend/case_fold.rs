//! Unquoted names match columns whatever their case, as in DuckDB: a CSV's
//! `Qty` answers to `SELECT qty`. DataFusion folds unquoted names to lower
//! case and compares exactly; when that finds no column but exactly one
//! column differs from the name only in case, the statement's unquoted uses
//! of the name are made to spell it exactly (as if quoted) and it is planned
//! again. Quoted names stay exact: `"qty"` does not find `Qty`.

use datafusion::common::{DataFusionError, SchemaError};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::LogicalPlan;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{visit_expressions_mut, Expr, Ident};
use std::ops::ControlFlow;

/// How many differently cased names one statement may have matched this way.
pub const MAX_REFOLDS: usize = 16;

/// The plan of `statement` in `state`, planned again after each failure
/// that was only a column's case (`statement` is left as it was planned).
pub async fn plan_refolding(state: &SessionState, statement: &mut DFStatement) -> Result<LogicalPlan, DataFusionError> {
    let mut refolds = 0;
    loop {
        match state.statement_to_plan(statement.clone()).await {
            Ok(plan) => return Ok(plan),
            Err(e) if refolds < MAX_REFOLDS && refold_for(statement, &e) => refolds += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Rewrites `statement` after `err` if it failed only on a column's case;
/// returns whether it did (then plan it again).
pub fn refold_for(statement: &mut DFStatement, err: &DataFusionError) -> bool {
    let mut changed = false;
    for error in schema_errors(err) {
        changed |= refold_one(statement, error);
    }
    changed
}

fn refold_one(statement: &mut DFStatement, error: &SchemaError) -> bool {
    let SchemaError::FieldNotFound { field, valid_fields } = error else { return false };
    let wanted = field.name.as_str();
    let mut candidates = valid_fields
        .iter()
        .filter(|c| c.name.eq_ignore_ascii_case(wanted) && c.name != wanted)
        .filter(|c| {
            field.relation.as_ref().is_none_or(|r| c.relation.as_ref().is_some_and(|cr| cr.table() == r.table()))
        })
        .map(|c| c.name.clone())
        .collect::<Vec<_>>();
    candidates.dedup();
    let [exact] = candidates.as_slice() else { return false };
    let mut changed = false;
    let mut respell = |ident: &mut Ident| {
        if ident.quote_style.is_none() && ident.value.eq_ignore_ascii_case(wanted) {
            ident.value = exact.clone();
            ident.quote_style = Some('"');
            changed = true;
        }
    };
    let mut visit = |expr: &mut Expr| {
        match expr {
            Expr::Identifier(ident) => respell(ident),
            Expr::CompoundIdentifier(parts) => {
                if let Some(last) = parts.last_mut() {
                    respell(last);
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    };
    visit_statement(statement, &mut visit);
    changed
}

fn visit_statement(statement: &mut DFStatement, visit: &mut impl FnMut(&mut Expr) -> ControlFlow<()>) {
    match statement {
        DFStatement::Statement(s) => {
            let _ = visit_expressions_mut(s.as_mut(), visit);
        }
        DFStatement::Explain(explain) => visit_statement(&mut explain.statement, visit),
        DFStatement::CreateExternalTable(_) | DFStatement::CopyTo(_) | DFStatement::Reset(_) => {}
    }
}

/// The schema errors in `err`, through the layers DataFusion adds (the
/// planner reports every unknown column of a statement at once).
fn schema_errors(err: &DataFusionError) -> Vec<&SchemaError> {
    match err {
        DataFusionError::SchemaError(e, _) => vec![e],
        DataFusionError::Context(_, inner) | DataFusionError::Diagnostic(_, inner) => schema_errors(inner),
        DataFusionError::Shared(inner) => schema_errors(inner),
        DataFusionError::Collection(all) => all.iter().flat_map(schema_errors).collect(),
        _ => Vec::new(),
    }
}
