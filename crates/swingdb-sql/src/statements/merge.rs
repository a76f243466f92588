//! `MERGE INTO target USING source ON condition WHEN [NOT] MATCHED [BY SOURCE |
//! BY TARGET] [AND condition] THEN UPDATE SET ... | DELETE | INSERT [(columns)]
//! VALUES (...)` (SQL:2003, PostgreSQL 17, DuckDB). Every decision is made on
//! the table as it was: the source is joined once to the target's rows (with
//! their row ids), and once anti-joined for the target rows it does not match
//! (BY SOURCE); each pair or row goes to the first WHEN clause of its kind
//! whose condition is true, and the changes are then applied together like an UPDATE (rows
//! removed by id, their new versions and the inserted rows appended), through
//! the same key, CHECK and FOREIGN KEY checks as every write. A target row
//! that two source rows would change is an error, as in PostgreSQL.
//! RETURNING gives the rows updated and inserted (new versions) and deleted
//! (as they were), with `merge_action` telling which.

use super::dml::ROW_ID;
use super::run_plan::u64_values;
use super::{conform, Executor, Output};
use crate::frontend::names::object_name;
use crate::frontend::parse::identifier;
use crate::frontend::prepare::{assigned_column, bind_params, merge_returning};
use datafusion::arrow::array::RecordBatch;
use datafusion::common::{Column, JoinType, ScalarValue, TableReference};
use datafusion::functions::core::expr_fn::coalesce;
use datafusion::logical_expr::{col, lit, Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    Expr as SqlExpr, Merge, MergeAction, MergeClauseKind, MergeInsertKind, SetExpr, Statement as SqlStatement,
    TableFactor,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::collections::HashSet;
use swingdb_storage::error::{Error, ErrorKind, Result};

/// Which rows a WHEN clause is for.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Pairs of a source row and the target row it matches.
    Matched,
    /// Source rows matching no target row.
    NotMatched,
    /// Target rows no source row matches.
    NotMatchedBySource,
}

impl Kind {
    fn sql(self) -> &'static str {
        match self {
            Kind::Matched => "MATCHED",
            Kind::NotMatched => "NOT MATCHED",
            Kind::NotMatchedBySource => "NOT MATCHED BY SOURCE",
        }
    }
}

fn not_supported(message: String) -> Error {
    Error::new(ErrorKind::NotSupported, message)
}

impl Executor {
    /// Runs a MERGE statement with the values of its placeholders.
    pub(crate) async fn merge(&self, merge: &Merge, params: &[ScalarValue]) -> Result<Output> {
        let bind = |plan: LogicalPlan| bind_params(plan, params);
        let TableFactor::Table { name: target, alias, .. } = &merge.table else {
            return Err(Error::programming("MERGE INTO needs a table name"));
        };
        let name = object_name(target, &self.own)?;
        let meta = self.table(&name)?;
        let returning = merge_returning(&merge.output, &merge.table, params)?;
        let qualifier = alias.as_ref().map_or(name.clone(), |a| identifier(&a.name));
        let columns: Vec<String> = meta.schema.fields().iter().map(|f| f.name().clone()).collect();
        let target_column = |c: &str| col(Column::new(Some(TableReference::bare(qualifier.as_str())), c));

        // The source's rows (any table, view, subquery or VALUES with an
        // alias), planned as `SELECT * FROM <source>`.
        let mut select = Parser::parse_sql(&GenericDialect {}, "SELECT * FROM merge_source")
            .map_err(|e| Error::internal(format!("MERGE's query template: {e}")))?;
        let SqlStatement::Query(query) = &mut select[0] else { return Err(Error::internal("MERGE's query template")) };
        let SetExpr::Select(body) = query.body.as_mut() else { return Err(Error::internal("MERGE's query template")) };
        body.from[0].relation = merge.source.clone();
        let statement = DFStatement::Statement(Box::new(select.remove(0)));
        let source = bind(self.ctx.state().statement_to_plan(statement).await?)?;

        let existing =
            LogicalPlanBuilder::scan(TableReference::bare(qualifier.as_str()), self.row_id_source(&meta), None)?
                .build()?;
        let schema = source.schema().join(existing.schema())?;
        let state = self.ctx.state();
        let plan_expr = |e: &SqlExpr| -> Result<Expr> { Ok(state.create_logical_expr(&e.to_string(), &schema)?) };
        let on = plan_expr(&merge.on)?;
        let joined = LogicalPlanBuilder::from(source.clone())
            .join_on(existing.clone(), JoinType::Left, [on.clone()])?
            .build()?;
        // The target's rows no source row matches (for WHEN NOT MATCHED BY SOURCE).
        let unmatched_targets =
            LogicalPlanBuilder::from(existing).join_on(source, JoinType::LeftAnti, [on])?.build()?;

        // Each clause takes the rows or pairs of its kind that no earlier clause took.
        let mut taken: [Vec<Expr>; 3] = Default::default();
        let (mut removed, mut updated, mut inserted): (Vec<u64>, Vec<RecordBatch>, Vec<RecordBatch>) =
            (Vec::new(), Vec::new(), Vec::new());
        // The rows deleted, as they were (kept for RETURNING only).
        let mut deleted: Vec<RecordBatch> = Vec::new();
        for clause in &merge.clauses {
            let kind = match clause.clause_kind {
                MergeClauseKind::Matched => Kind::Matched,
                MergeClauseKind::NotMatched | MergeClauseKind::NotMatchedByTarget => Kind::NotMatched,
                MergeClauseKind::NotMatchedBySource => Kind::NotMatchedBySource,
            };
            let condition = match &clause.predicate {
                Some(p) => plan_expr(p)?,
                None => lit(true),
            };
            // There is no source row for the target rows BY SOURCE takes.
            let reads_source = |e: &Expr| {
                e.column_refs()
                    .iter()
                    .any(|c| c.relation.as_ref().map_or(!columns.contains(&c.name), |r| r.table() != qualifier))
            };
            let by_source_reads_source = kind == Kind::NotMatchedBySource
                && (reads_source(&condition)
                    || match &clause.action {
                        MergeAction::Update(update) => update
                            .assignments
                            .iter()
                            .map(|a| plan_expr(&a.value))
                            .collect::<Result<Vec<_>>>()?
                            .iter()
                            .any(reads_source),
                        _ => false,
                    });
            if by_source_reads_source {
                return Err(Error::programming(format!(
                    "WHEN NOT MATCHED BY SOURCE can only read the columns of '{qualifier}': it takes the rows no source row matches"
                )));
            }
            let (rows, mut filter) = match kind {
                Kind::Matched => (&joined, col(ROW_ID).is_not_null()),
                Kind::NotMatched => (&joined, col(ROW_ID).is_null()),
                Kind::NotMatchedBySource => (&unmatched_targets, lit(true)),
            };
            filter = filter.and(condition.clone());
            let taken = &mut taken[kind as usize];
            for earlier in taken.iter() {
                filter = filter.and(!coalesce(vec![earlier.clone(), lit(false)]));
            }
            taken.push(condition);
            let pairs = LogicalPlanBuilder::from(rows.clone()).filter(filter)?;
            let is_matched = kind != Kind::NotMatched;
            match (&clause.action, is_matched) {
                (MergeAction::Update(update), true) => {
                    if update.update_predicate.is_some() || update.delete_predicate.is_some() {
                        return Err(not_supported(
                            "UPDATE ... WHERE / DELETE WHERE inside MERGE is not supported; use WHEN MATCHED AND ..."
                                .into(),
                        ));
                    }
                    let mut set: Vec<(String, &SqlExpr)> = Vec::new();
                    for assignment in &update.assignments {
                        let column = assigned_column(assignment)?;
                        if !columns.contains(&column) {
                            return Err(Error::programming(format!(
                                "MERGE sets column '{column}', which table '{name}' does not have"
                            )));
                        }
                        set.push((column, &assignment.value));
                    }
                    let mut projection = vec![col(ROW_ID)];
                    for c in &columns {
                        let value = match set.iter().rev().find(|(column, _)| column == c) {
                            Some((_, e)) => plan_expr(e)?,
                            None => target_column(c),
                        };
                        projection.push(value.alias(c));
                    }
                    let rows = self.collect_plan(bind(pairs.project(projection)?.build()?)?).await?;
                    removed.extend(u64_values(&rows, 0));
                    for batch in rows {
                        updated.push(batch.project(&(1..batch.num_columns()).collect::<Vec<_>>())?);
                    }
                }
                (MergeAction::Delete { .. }, true) => {
                    let mut projection = vec![col(ROW_ID)];
                    if returning.is_some() {
                        projection.extend(columns.iter().map(|c| target_column(c)));
                    }
                    let rows = self.collect_plan(bind(pairs.project(projection)?.build()?)?).await?;
                    removed.extend(u64_values(&rows, 0));
                    if returning.is_some() {
                        for batch in rows {
                            deleted.push(batch.project(&(1..batch.num_columns()).collect::<Vec<_>>())?);
                        }
                    }
                }
                (MergeAction::Insert(insert), false) => {
                    if insert.insert_predicate.is_some() {
                        return Err(not_supported(
                            "INSERT ... WHERE inside MERGE is not supported; use WHEN NOT MATCHED AND ...".into(),
                        ));
                    }
                    let MergeInsertKind::Values(values) = &insert.kind else {
                        return Err(not_supported("INSERT ROW inside MERGE is not supported; list the values".into()));
                    };
                    let [row] = values.rows.as_slice() else {
                        return Err(Error::programming("MERGE's INSERT takes one row of VALUES"));
                    };
                    let named: Vec<String> = match insert.columns.is_empty() {
                        true => columns.clone(),
                        false => insert
                            .columns
                            .iter()
                            .map(|c| c.0.last().and_then(|p| p.as_ident()).map(identifier).unwrap_or_default())
                            .collect(),
                    };
                    if named.len() != row.len() {
                        return Err(Error::programming(format!(
                            "MERGE's INSERT names {} columns but gives {} values",
                            named.len(),
                            row.len()
                        )));
                    }
                    let provider = self.ctx.table_provider(TableReference::bare(name.as_str())).await?;
                    let mut projection = Vec::new();
                    for (i, c) in columns.iter().enumerate() {
                        let value = match named.iter().position(|n| n == c) {
                            Some(at) => plan_expr(&row[at])?,
                            None => match provider.get_column_default(c) {
                                Some(default) => default.clone(),
                                None => lit(ScalarValue::try_from(meta.schema.field(i).data_type())?),
                            },
                        };
                        projection.push(value.cast_to(meta.schema.field(i).data_type(), &schema)?.alias(c));
                    }
                    if let Some(unknown) = named.iter().find(|n| !columns.contains(n)) {
                        return Err(Error::programming(format!(
                            "MERGE inserts column '{unknown}', which table '{name}' does not have"
                        )));
                    }
                    inserted.extend(self.collect_plan(bind(pairs.project(projection)?.build()?)?).await?);
                }
                (action, is_matched) => {
                    return Err(Error::programming(format!(
                        "WHEN {} THEN {action} is not possible; use {} there",
                        kind.sql(),
                        if is_matched { "UPDATE or DELETE" } else { "INSERT" }
                    )))
                }
            }
        }
        let mut seen = HashSet::with_capacity(removed.len());
        if removed.iter().any(|id| !seen.insert(*id)) {
            return Err(Error::new(
                ErrorKind::Integrity,
                format!(
                    "MERGE would change a row of table '{name}' twice: more than one source row matches it; \
                     make the ON condition match each target row at most once"
                ),
            ));
        }
        let written = removed.len() as u64 + inserted.iter().map(|b| b.num_rows() as u64).sum::<u64>();
        let count = |batches: &[RecordBatch]| batches.iter().map(|b| b.num_rows()).sum::<usize>();
        let (updates, inserts) = (count(&updated), count(&inserted));
        let mut rows = self.replace_rows(&name, &meta, removed, updated.into_iter().chain(inserted).collect()).await?;
        let Some(returning) = returning else { return Ok(Output::Count(written)) };
        // Deleted rows as they were, in the table's types (as the others are).
        for batch in &deleted {
            rows.push(conform(batch, &meta.schema, &name)?);
        }
        let actions = std::iter::repeat_n("UPDATE", updates)
            .chain(std::iter::repeat_n("INSERT", inserts))
            .chain(std::iter::repeat_n("DELETE", count(&deleted)))
            .collect();
        self.returned_rows(returning, &meta.schema, rows, Some(actions)).await
    }
}
