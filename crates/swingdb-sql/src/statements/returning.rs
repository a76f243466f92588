//! The rows a RETURNING clause gives: its items evaluated as a query over
//! the rows the statement wrote (new versions for INSERT and UPDATE, the
//! rows as they were for DELETE), known by the name the statement gave the
//! table. The query goes through the same front door as any other (macros,
//! DuckDB's spellings, `* EXCLUDE`, output names), and its rows are
//! computed before the statement ends, so an error in RETURNING (a division
//! by zero) undoes the write, as in PostgreSQL and DuckDB.

use super::{Executor, Output};
use crate::frontend::output_names::restore_names;
use crate::frontend::prepare::{prepare, Prepared, Returning};
use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::MemTable;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, ExcludeSelectItem, Expr as SqlExpr, FunctionArguments, Ident, ObjectName, SelectItem,
    SetExpr, Statement as SqlStatement, TableFactor, WildcardAdditionalOptions,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use futures::TryStreamExt;
use std::ops::ControlFlow;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

/// The name the written rows are registered under while RETURNING reads them
/// (on this connection only, for the length of the statement).
const RETURNED: &str = "__swingdb_returned";

/// The hidden column holding each row's MERGE action (`merge_action`).
const ACTION: &str = "__swingdb_merge_action";

/// Removes the registration of the written rows when dropped, also when
/// RETURNING fails.
struct Registration<'a>(&'a Executor);

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.0.registered.lock().remove(RETURNED);
    }
}

impl Executor {
    /// The rows `returning` gives for `rows` (shaped `schema`, as the table);
    /// `actions` are a MERGE's, one per row ('INSERT', 'UPDATE', 'DELETE').
    pub(crate) async fn returned_rows(
        &self,
        returning: Returning,
        schema: &SchemaRef,
        rows: Vec<RecordBatch>,
        actions: Option<Vec<&'static str>>,
    ) -> Result<Output> {
        let Returning { mut items, table, params } = returning;
        let (schema, rows) = match actions {
            None => (schema.clone(), rows),
            Some(actions) => {
                let merged = concat_batches(schema, &rows)?;
                let mut fields = schema.fields().to_vec();
                fields.push(Arc::new(Field::new(ACTION, DataType::Utf8, false)));
                let mut columns = merged.columns().to_vec();
                columns.push(Arc::new(StringArray::from(actions)) as ArrayRef);
                let schema = Arc::new(Schema::new(fields));
                (schema.clone(), vec![RecordBatch::try_new(schema, columns)?])
            }
        };
        if schema.fields().iter().any(|f| f.name() == ACTION) {
            let named_action = schema.fields().iter().any(|f| f.name() == "merge_action");
            items = items.into_iter().map(|item| with_merge_action(item, named_action)).collect();
        }
        let table_rows = MemTable::try_new(schema.clone(), vec![rows])?;
        self.registered.lock().insert(RETURNED.to_string(), Arc::new(table_rows));
        let _registration = Registration(self);
        let state = self.ctx.state();
        let cx = self.prepare_context(&state);
        let Prepared::Plan(prepared) = prepare(query(items, table, &self.own)?, &cx, &params, false).await? else {
            return Err(Error::internal("RETURNING planned as a view"));
        };
        let stream = restore_names(self.stream_plan(prepared.plan).await?, prepared.names)?;
        let out = stream.schema();
        let batches: Vec<RecordBatch> = stream.try_collect().await?;
        Ok(Output::Rows(concat_batches(&out, &batches)?))
    }
}

/// `SELECT <items> FROM <the written rows> AS <table>`, the rows registered
/// in schema `own` (a member's statement reads `main` by default).
fn query(items: Vec<SelectItem>, table: Ident, own: &str) -> Result<DFStatement> {
    let template = format!("SELECT * FROM {RETURNED} AS returned");
    let mut statements = Parser::parse_sql(&GenericDialect {}, &template)
        .map_err(|e| Error::internal(format!("RETURNING's query template: {e}")))?;
    let SqlStatement::Query(query) = &mut statements[0] else {
        return Err(Error::internal("RETURNING's query template"));
    };
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(Error::internal("RETURNING's query template"));
    };
    select.projection = items;
    if let TableFactor::Table { name, alias: Some(alias), .. } = &mut select.from[0].relation {
        alias.name = table;
        *name = ObjectName::from(vec![Ident::with_quote('"', own), Ident::new(RETURNED)]);
    }
    Ok(DFStatement::Statement(Box::new(statements.remove(0))))
}

/// `item` of a MERGE's RETURNING: `merge_action()` (PostgreSQL's spelling)
/// and, unless the table has a column of that name, `merge_action` (DuckDB's)
/// read the hidden action column, which `*` leaves out.
fn with_merge_action(mut item: SelectItem, named_action: bool) -> SelectItem {
    let hidden = || SqlExpr::Identifier(Ident::with_quote('"', ACTION));
    let unnamed_action = match &item {
        SelectItem::UnnamedExpr(SqlExpr::Identifier(i)) => {
            !named_action && i.value.eq_ignore_ascii_case("merge_action")
        }
        SelectItem::UnnamedExpr(SqlExpr::Function(f)) => is_merge_action(f),
        _ => false,
    };
    if unnamed_action {
        return SelectItem::ExprWithAlias { expr: hidden(), alias: Ident::new("merge_action") };
    }
    match &mut item {
        SelectItem::Wildcard(options) | SelectItem::QualifiedWildcard(_, options) => exclude_action(options),
        SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => {
            let _ = visit_expressions_mut(expr, |e| {
                let replace = match e {
                    SqlExpr::Function(f) => is_merge_action(f),
                    SqlExpr::Identifier(i) => !named_action && i.value.eq_ignore_ascii_case("merge_action"),
                    _ => false,
                };
                if replace {
                    *e = hidden();
                }
                ControlFlow::<()>::Continue(())
            });
        }
        _ => {}
    }
    item
}

/// Whether `f` is a call of `merge_action()`.
fn is_merge_action(f: &datafusion::sql::sqlparser::ast::Function) -> bool {
    let no_args = match &f.args {
        FunctionArguments::None => true,
        FunctionArguments::List(list) => list.args.is_empty(),
        FunctionArguments::Subquery(_) => false,
    };
    no_args && f.name.0.len() == 1 && f.name.to_string().eq_ignore_ascii_case("merge_action")
}

/// `options` of a `*` with the hidden action column excluded.
fn exclude_action(options: &mut WildcardAdditionalOptions) {
    let hidden: ObjectName = Ident::with_quote('"', ACTION).into();
    options.opt_exclude = Some(match options.opt_exclude.take() {
        None => ExcludeSelectItem::Single(hidden),
        Some(ExcludeSelectItem::Single(one)) => ExcludeSelectItem::Multiple(vec![one, hidden]),
        Some(ExcludeSelectItem::Multiple(mut many)) => {
            many.push(hidden);
            ExcludeSelectItem::Multiple(many)
        }
    });
}
