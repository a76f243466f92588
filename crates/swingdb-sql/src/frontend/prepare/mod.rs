//! The front door of `sql/`: [`prepare`] turns one parsed statement that
//! DataFusion plans into a plan ready to run, with what the plan cannot
//! carry. Every rewrite swingdb adds to DataFusion's planner runs here, in
//! this order (each may rely on the ones before it):
//!
//! 1. **output names**: the names the user wrote for result columns, kept
//!    apart from the ones DataFusion would derive ([`OutputNames`]), and
//!    nested columns that DataFusion would name alike given their own text;
//! 2. **macros**: calls of the database's macros replaced by their bodies;
//! 3. **upsert**: an INSERT's conflict clause taken off ([`Upsert`]), and
//!    the RETURNING clause of a write ([`Returning`]);
//! 4. **defaults**: `DEFAULT` (and NULL for identity columns) in VALUES;
//! 5. **named options**: `read_csv('f', header = true)` spelled for DataFusion;
//! 6. **DuckDB's spellings** made plain (`FROM t SELECT`, `TABLESAMPLE`, ...),
//!    and ENUM types where SQL takes a type (casts, a CREATE TABLE's columns);
//! 7. **NATURAL and USING joins** resolved against the tables' columns,
//!    and `INSERT ... BY NAME` against its query's;
//! 8. **PIVOT / UNPIVOT**;
//! 9. **column lists**: `* EXCLUDE`, `* REPLACE`, `COLUMNS(...)`;
//!    a `CREATE VIEW` stops here: the view stores its query so rewritten;
//! 10. **column rules**: a CREATE TABLE's DEFAULTs, CHECKs, FOREIGN KEYs,
//!     identity and CLUSTER BY taken off ([`Constraints`]);
//! 11. **planning**, with identifiers folded again where the user's case
//!     was not the stored one; a planning error is made helpful here;
//! 12. **parameters**: one value per placeholder, bound into the plan; a
//!     `SET` checked against the setting's range.
//!
//! JSON columns become text before any of this, for every statement
//! whichever executor runs it ([`before_routing`]).

mod column_rules;
mod defaults;
mod returning;
mod storage_parameters;
mod upsert;

pub(crate) use column_rules::{check_cluster_columns, cluster_columns, foreign_key, take_column_rules};
pub(crate) use returning::{merge_returning, Returning};
use storage_parameters::take_storage_parameters;
pub(crate) use storage_parameters::{compression_of, default_compression};
pub(crate) use upsert::{assigned_column, qualify, Action, Upsert};

use crate::frontend::case_fold::plan_refolding;
use crate::frontend::diagnose::unknown;
use crate::frontend::dialect::macros::{expand, Macro};
use crate::frontend::dialect::settings;
use crate::frontend::output_names::{alias_engine_repeats, plan_output_names, OutputNames};
use crate::Tables;
use datafusion::common::{ParamValues, ScalarValue};
use datafusion::execution::SessionState;
use datafusion::logical_expr::{LogicalPlan, Statement};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::Statement as SqlStatement;
use std::collections::BTreeMap;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};
use swingdb_storage::{Constraints, TableMeta};

/// What [`prepare`] reads: the session and the tables the statement sees.
pub(crate) struct PrepareContext<'a> {
    /// The session that plans (functions, settings, catalog).
    pub state: &'a SessionState,
    /// The tables (and views, macros, sequences) of the database it changes,
    /// locked only while a step looks one up (planning locks them too).
    pub tables: &'a Tables,
    /// That database's schema name: `main`, or an attached database's alias.
    pub own: &'a str,
    /// Whether the database may read and write files (for error messages).
    pub external_access: bool,
}

/// A statement ready to run. (One per statement, moved once: its size does
/// not matter.)
#[allow(clippy::large_enum_variant)]
pub(crate) enum Prepared {
    /// `CREATE VIEW`, rewritten (steps 1-9), to be stored as text.
    View(DFStatement),
    /// A planned statement with its parameters bound.
    Plan(PreparedPlan),
}

/// A statement's plan and what the plan cannot carry.
pub(crate) struct PreparedPlan {
    /// The plan, parameters bound.
    pub plan: LogicalPlan,
    /// The result's column names as written.
    pub names: OutputNames,
    /// An INSERT's conflict clause.
    pub upsert: Option<Upsert>,
    /// A write's RETURNING clause, with the statement's parameter values.
    pub returning: Option<Returning>,
    /// A CREATE TABLE's column rules (empty for other statements).
    pub column_rules: Constraints,
}

/// The rewrites every statement gets before it is routed to an executor.
pub(crate) fn before_routing(statement: &mut DFStatement) {
    crate::frontend::json::json_as_text(statement);
}

/// Prepares `statement` (see the module's doc for the steps) with
/// positional `params`; `exact_params` refuses values beyond those used.
pub(crate) async fn prepare(
    statement: DFStatement,
    cx: &PrepareContext<'_>,
    params: &[ScalarValue],
    exact_params: bool,
) -> Result<Prepared> {
    match plan_unbound(statement, cx).await? {
        Prepared::Plan(mut prepared) => {
            // RETURNING may use placeholders the write does not.
            let exact_params = exact_params && prepared.returning.is_none();
            prepared.plan = bind(prepared.plan, params, exact_params)?;
            if let Some(returning) = &mut prepared.returning {
                returning.params = params.to_vec();
            }
            Ok(Prepared::Plan(prepared))
        }
        view => Ok(view),
    }
}

/// `statement` rewritten and planned (steps 1 to 11), its placeholders
/// left unbound: what it takes and returns, before any value is given.
pub(crate) async fn plan_unbound(mut statement: DFStatement, cx: &PrepareContext<'_>) -> Result<Prepared> {
    let names = plan_output_names(&mut statement);
    alias_engine_repeats(&mut statement);
    expand_macros(&mut statement, cx.tables)?;
    let upsert = upsert::take_upsert(&mut statement)?;
    let returning = returning::take_returning(&mut statement)?;
    defaults::take_default_values(&mut statement, cx.tables, cx.own)?;
    crate::functions::named_options(&mut statement);
    crate::frontend::dialect::syntax::rewrite(&mut statement)?;
    let enum_columns = crate::frontend::dialect::enum_types::resolve(&mut statement, cx.tables, cx.own)?;
    crate::frontend::dialect::insert_by_name::resolve(&mut statement, cx.state, cx.tables, cx.own).await?;
    crate::frontend::using_joins::resolve_natural(&mut statement, cx.state).await;
    crate::frontend::using_joins::rewrite(&mut statement);
    crate::frontend::dialect::pivot::rewrite(&mut statement, cx.state).await?;
    crate::frontend::dialect::columns::rewrite(&mut statement, cx.state).await?;
    crate::frontend::dialect::one_group::rewrite(&mut statement, cx.state);
    if matches!(&statement, DFStatement::Statement(s) if matches!(s.as_ref(), SqlStatement::CreateView(_))) {
        return Ok(Prepared::View(statement));
    }
    let mut column_rules = take_column_rules(&mut statement, cx.own)?;
    column_rules.compression = match take_storage_parameters(&mut statement)? {
        Some(compression) => compression,
        None => default_compression(cx.state.config_options()),
    };
    let plan = match plan_refolding(cx.state, &mut statement).await {
        Ok(plan) => crate::frontend::dialect::enum_types::typed_columns(plan, &enum_columns)?,
        Err(e) => return Err(unknown::explain(e.into(), cx.state, cx.tables, cx.own, cx.external_access)),
    };
    Ok(Prepared::Plan(PreparedPlan { plan, names, upsert, returning, column_rules }))
}

/// `statement` with the calls of the database's macros (stored among
/// `tables`) replaced by their bodies.
fn expand_macros(statement: &mut DFStatement, tables: &Tables) -> Result<()> {
    let macros: BTreeMap<String, Arc<TableMeta>> =
        tables.lock().iter().filter(|(_, t)| t.macro_sql().is_some()).map(|(n, t)| (n.clone(), t.clone())).collect();
    if macros.is_empty() {
        return Ok(());
    }
    let find = |name: &str| macros.get(name).and_then(|t| t.macro_sql()).map(Macro::parse);
    expand(statement, &find)
}

/// `plan` with `params` bound, once they are one per placeholder; a `SET`
/// checked.
fn bind(plan: LogicalPlan, params: &[ScalarValue], exact_params: bool) -> Result<LogicalPlan> {
    let wanted = plan.get_parameter_types()?.len();
    if (exact_params && params.len() > wanted) || params.len() < wanted {
        let given = match params.len() {
            0 => "no values were given".to_string(),
            1 => "1 value was given".to_string(),
            n => format!("{n} values were given"),
        };
        return Err(Error::programming(format!(
            "the statement has {wanted} parameter placeholder{} (? or $n) but {given}; pass one value per placeholder",
            if wanted == 1 { "" } else { "s" }
        )));
    }
    Ok(match bind_params(plan, params)? {
        LogicalPlan::Statement(Statement::SetVariable(set)) => {
            LogicalPlan::Statement(Statement::SetVariable(settings::checked(set)?))
        }
        plan => plan,
    })
}

/// `plan` with its placeholders `$1, $2, ...` replaced by `params` (none: as it is).
pub(crate) fn bind_params(plan: LogicalPlan, params: &[ScalarValue]) -> Result<LogicalPlan> {
    match params.is_empty() {
        true => Ok(plan),
        false => Ok(plan.with_param_values(ParamValues::List(params.iter().cloned().map(Into::into).collect()))?),
    }
}
