//! What a statement takes and returns, found by planning it without running
//! it: the types of its parameters and the columns of its rows. Servers need
//! this before any value is bound (Flight SQL's `CreatePreparedStatement`
//! answers it, and JDBC clients count a statement's parameters by it), and
//! the statement must not run twice: describing has no effects.
//!
//! Planning a statement that reads a pipe or a PostgreSQL server would meet
//! the exporter or connect to the server (see `sql::functions::remote`), so
//! such statements, and the ones swingdb runs without DataFusion's planner,
//! are described as "not known until they run".

use super::run::TextStatement;
use super::Executor;
use crate::frontend::control::Control;
use crate::frontend::parse::parse;
use crate::frontend::prepare::{before_routing, plan_unbound, Prepared};
use crate::frontend::temporary::{resolve_temporary, take_temporary};
use crate::functions::remote::without_url_tables;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::logical_expr::LogicalPlan;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{ObjectType, Statement as SqlStatement};
use std::collections::BTreeSet;
use std::sync::Arc;
use swingdb_storage::error::Result;

/// What one statement takes and returns, before it runs (see
/// [`crate::Connection::statement_info`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StatementInfo {
    /// Its parameters in order (`$1`, `$2`, ... or the `?`s), one field each,
    /// typed `Null` where nothing in the statement fixes the type; `None`
    /// when they are not known before it runs.
    pub parameters: Option<SchemaRef>,
    /// The columns of the rows it returns; `None` for a statement that
    /// returns no rows, or whose rows are not known before it runs.
    pub columns: Option<SchemaRef>,
    /// Whether its rows come in an order it asks for (`ORDER BY`), which a
    /// reader that splits them must keep.
    pub ordered: bool,
}

impl StatementInfo {
    /// A statement whose parameters and rows are known only when it runs.
    fn unknown() -> Self {
        Self { parameters: None, columns: None, ordered: false }
    }
}

impl Executor {
    /// Describes the one statement `sql` inside the open transaction (see
    /// the module doc), `temporary` naming the connection's temporary tables
    /// and views; a statement that would fail to plan fails here with the
    /// error its run would give.
    pub async fn statement_info(&self, sql: &str, temporary: &BTreeSet<String>) -> Result<StatementInfo> {
        if TextStatement::recognize(sql).is_some() {
            return Ok(StatementInfo::unknown());
        }
        let mut statements = parse(sql)?;
        if statements.len() != 1 {
            return Ok(StatementInfo::unknown());
        }
        let mut statement = statements.remove(0);
        if Control::recognize(&statement)?.is_some() || !planned_by_datafusion(&statement) {
            return Ok(StatementInfo::unknown());
        }
        if take_temporary(&mut statement)? {
            return Ok(StatementInfo::unknown()); // its schema may not exist yet
        }
        resolve_temporary(&mut statement, temporary);
        before_routing(&mut statement);
        let state = self.ctx.state();
        let cx = self.prepare_context(&state);
        let (planned, read_a_url) = without_url_tables(plan_unbound(statement, &cx)).await;
        if read_a_url {
            return Ok(StatementInfo::unknown());
        }
        let prepared = match planned? {
            Prepared::View(_) => {
                return Ok(StatementInfo { parameters: Some(no_fields()), ..StatementInfo::unknown() })
            }
            Prepared::Plan(prepared) => prepared,
        };
        let parameters = parameter_schema(&prepared.plan)?;
        let columns = match &prepared.plan {
            LogicalPlan::Ddl(_)
            | LogicalPlan::Dml(_)
            | LogicalPlan::Copy(_)
            | LogicalPlan::Statement(_)
            | LogicalPlan::DescribeTable(_) => None,
            plan => {
                let schema = plan.schema().as_arrow();
                Some(Arc::new(prepared.names.renamed(schema).unwrap_or_else(|| schema.clone())))
            }
        };
        let ordered = columns.is_some() && is_ordered(&prepared.plan);
        Ok(StatementInfo { parameters: Some(parameters), columns, ordered })
    }
}

/// Whether `run_in_txn` hands `statement` to DataFusion's planner (through
/// `prepare`); the others it routes to swingdb's own executors first.
fn planned_by_datafusion(statement: &DFStatement) -> bool {
    match statement {
        DFStatement::CopyTo(copy) => !crate::functions::remote::is_url(&copy.target),
        DFStatement::Statement(s) => !matches!(
            s.as_ref(),
            SqlStatement::AlterTable(_)
                | SqlStatement::Merge(_)
                | SqlStatement::CreateIndex(_)
                | SqlStatement::Drop { object_type: ObjectType::Index | ObjectType::Sequence, .. }
                | SqlStatement::CreateSequence { .. }
                | SqlStatement::CreateMacro { .. }
                | SqlStatement::DropFunction(_)
                | SqlStatement::CreateType { .. }
                | SqlStatement::Copy { .. }
        ),
        _ => true,
    }
}

/// An empty schema: a statement without parameters.
fn no_fields() -> SchemaRef {
    Arc::new(Schema::empty())
}

/// The parameters of `plan`, `$1` to `$n` in order.
fn parameter_schema(plan: &LogicalPlan) -> Result<SchemaRef> {
    let types = plan.get_parameter_types()?;
    let mut numbered: Vec<(usize, Option<DataType>)> =
        types.into_iter().filter_map(|(name, t)| Some((name.strip_prefix('$')?.parse().ok()?, t))).collect();
    numbered.sort_by_key(|(n, _)| *n);
    let fields: Vec<Field> =
        numbered.into_iter().map(|(n, t)| Field::new(format!("${n}"), t.unwrap_or(DataType::Null), true)).collect();
    Ok(Arc::new(Schema::new(fields)))
}

/// Whether the rows of `plan` come sorted: a sort under nothing but
/// projections, limits and aliases.
fn is_ordered(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Sort(_) => true,
        LogicalPlan::Projection(p) => is_ordered(&p.input),
        LogicalPlan::Limit(l) => is_ordered(&l.input),
        LogicalPlan::SubqueryAlias(a) => is_ordered(&a.input),
        _ => false,
    }
}
