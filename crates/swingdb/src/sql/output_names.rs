//! Result columns with the same name. SQLite, PostgreSQL and DuckDB answer
//! `SELECT a, a FROM t` and `SELECT 1 AS x, 2 AS x`; DataFusion refuses any
//! plan whose columns share a name. For a query's own select list (the one
//! whose columns the user receives), later repeats of a name are planned
//! under a private alias and given their name back on the result's schema
//! (Arrow allows repeated names), which costs nothing per row.

use super::parse::identifier;
use crate::error::Result;
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Expr, Ident, SelectItem, SetExpr, Statement};
use futures::StreamExt;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Prefix of the private aliases; the suffix keeps them apart.
const PRIVATE: &str = "__swingdb_repeat_";

/// The private alias -> real name pairs of a rewritten select list.
pub type Renames = HashMap<String, String>;

/// The name an unaliased select item gets, when it is a plain column.
fn plain_name(expr: &Expr) -> Option<String> {
    let ident = match expr {
        Expr::Identifier(i) => i,
        Expr::CompoundIdentifier(parts) => parts.last()?,
        _ => return None,
    };
    Some(identifier(ident))
}

/// Aliases the repeated names of a query's top-level select list privately;
/// what to rename back (empty when nothing repeats).
pub fn plan_repeated_names(statement: &mut DFStatement) -> Renames {
    let mut renames = Renames::new();
    let DFStatement::Statement(s) = statement else { return renames };
    let Statement::Query(query) = s.as_mut() else { return renames };
    let SetExpr::Select(select) = query.body.as_mut() else { return renames };
    let mut seen = HashSet::new();
    for (i, item) in select.projection.iter_mut().enumerate() {
        let (expr, name) = match item {
            SelectItem::UnnamedExpr(expr) => match plain_name(expr) {
                Some(name) => (expr.clone(), name),
                None => continue,
            },
            SelectItem::ExprWithAlias { expr, alias } => (expr.clone(), identifier(alias)),
            _ => continue,
        };
        if !seen.insert(name.clone()) {
            let private = format!("{PRIVATE}{i}");
            *item = SelectItem::ExprWithAlias { expr, alias: Ident::with_quote('"', private.clone()) };
            renames.insert(private, name);
        }
    }
    renames
}

/// `stream` with its privately aliased columns named back.
pub fn restore_names(stream: SendableRecordBatchStream, renames: Renames) -> Result<SendableRecordBatchStream> {
    if renames.is_empty() {
        return Ok(stream);
    }
    let fields: Vec<Field> = stream
        .schema()
        .fields()
        .iter()
        .map(|f| match renames.get(f.name()) {
            Some(name) => f.as_ref().clone().with_name(name),
            None => f.as_ref().clone(),
        })
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(fields, stream.schema().metadata().clone()));
    let out = schema.clone();
    let renamed = stream.map(move |batch| Ok(RecordBatch::try_new(out.clone(), batch?.columns().to_vec())?));
    Ok(Box::pin(RecordBatchStreamAdapter::new(schema, renamed)))
}
