//! `SUMMARIZE t` / `SUMMARIZE SELECT ...`, as in DuckDB: one row per column
//! with its type, min, max, approximate distinct count, mean, standard
//! deviation, quartiles (approximate), count and share of NULLs. Computed in
//! one aggregate pass with DataFusion's expression API: no SQL text is built from the
//! table's or columns' names.

use super::Executor;
use super::Output;
use crate::frontend::names::object_name;
use crate::frontend::parse::{identifier, parse};
use crate::frontend::types::column_type_name;
use datafusion::arrow::array::{ArrayRef, AsArray, Float64Array, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Int64Type, Schema};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::common::{Column, TableReference};
use datafusion::functions_aggregate::expr_fn::{approx_distinct, approx_percentile_cont, avg, count, max, min, stddev};
use datafusion::logical_expr::{cast, col, lit, Expr};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::Statement as SqlStatement;
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

/// What follows `SUMMARIZE` in `sql`, if the statement is one.
pub(crate) fn summarize_target(sql: &str) -> Option<&str> {
    let text = sql.trim_start();
    let keyword = text.get(..9)?;
    if !keyword.eq_ignore_ascii_case("summarize") || !text[9..].starts_with(char::is_whitespace) {
        return None;
    }
    Some(text[9..].trim().trim_end_matches(';').trim_end())
}

/// Statistics of one column, each a kind of value the column can have.
const STATS: usize = 9;

impl Executor {
    /// Runs `SUMMARIZE target` (a table name or a query).
    pub(crate) async fn summarize(&self, target: &str) -> Result<Output> {
        // A query parses as one; a table name does not (and is parsed as a name).
        let frame = match parse(target).ok().and_then(|mut s| s.pop()) {
            Some(DFStatement::Statement(s)) if matches!(s.as_ref(), SqlStatement::Query(_)) => {
                let plan = self.ctx.state().statement_to_plan(DFStatement::Statement(s)).await?;
                self.ctx.execute_logical_plan(plan).await?
            }
            _ => {
                let parsed = Parser::new(&GenericDialect {})
                    .try_with_sql(target)
                    .and_then(|mut p| p.parse_object_name(false))
                    .map_err(|e| Error::syntax(&format!("SUMMARIZE takes a table name or a query: {e}")))?;
                // `t`, or `o.t` of an attached database: each part folded as SQL folds it.
                let parts: Vec<String> = parsed.0.iter().filter_map(|p| p.as_ident()).map(identifier).collect();
                let (name, reference) = match parts.as_slice() {
                    [schema, table] => {
                        (format!("{schema}.{table}"), TableReference::partial(schema.as_str(), table.as_str()))
                    }
                    _ => {
                        let name = object_name(&parsed, &self.own)?;
                        (name.clone(), TableReference::bare(name))
                    }
                };
                let known = self.tables.lock().keys().cloned().collect::<Vec<_>>();
                self.ctx.table(reference).await.map_err(|_| {
                    let err = Error::programming(format!("table '{name}' not found"));
                    crate::frontend::diagnose::suggest_table(err, known.iter().map(String::as_str))
                })?
            }
        };
        let schema = frame.schema().clone();
        if schema.fields().is_empty() {
            return Err(Error::programming("SUMMARIZE: the table has no columns"));
        }
        let mut aggregates = Vec::new();
        for (qualifier, field) in schema.iter() {
            let c = col(Column::new(qualifier.cloned(), field.name()));
            let numeric = field.data_type().is_numeric();
            let text = |e: Expr| cast(e, DataType::Utf8);
            let number = |e: Expr| {
                if numeric {
                    cast(e, DataType::Float64)
                } else {
                    cast(lit(datafusion::common::ScalarValue::Null), DataType::Float64)
                }
            };
            let quartile = |q: f64| {
                if numeric {
                    text(approx_percentile_cont(cast(c.clone(), DataType::Float64).sort(true, false), lit(q), None))
                } else {
                    cast(lit(datafusion::common::ScalarValue::Null), DataType::Utf8)
                }
            };
            aggregates.extend([
                text(min(c.clone())),
                text(max(c.clone())),
                // The sketch takes integers and strings; other values count by their text.
                cast(
                    approx_distinct(
                        if field.data_type().is_integer()
                            || matches!(field.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
                        {
                            c.clone()
                        } else {
                            text(c.clone())
                        },
                    ),
                    DataType::Int64,
                ),
                number(avg(if numeric { cast(c.clone(), DataType::Float64) } else { lit(0.0) })),
                number(stddev(if numeric { cast(c.clone(), DataType::Float64) } else { lit(0.0) })),
                quartile(0.25),
                quartile(0.5),
                quartile(0.75),
                count(c.clone()),
            ]);
        }
        // Last: the number of rows, in the same pass.
        aggregates.push(count(lit(1)));
        let aliased: Vec<Expr> = aggregates.into_iter().enumerate().map(|(i, e)| e.alias(format!("s{i}"))).collect();
        let row = frame.aggregate(vec![], aliased)?.collect().await?;
        let row = row.first().ok_or_else(|| Error::internal("SUMMARIZE: no aggregate row"))?;
        let total = row.column(row.num_columns() - 1).as_primitive::<Int64Type>().value(0);
        let options = FormatOptions::default();
        let cell = |i: usize| -> Option<String> {
            let array = row.column(i);
            if array.is_null(0) {
                return None;
            }
            ArrayFormatter::try_new(array.as_ref(), &options).ok().map(|f| f.value(0).to_string())
        };
        let (mut names, mut types, mut mins, mut maxes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut unique, mut mean, mut sd, mut counts, mut nulls) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut quartiles: [Vec<Option<String>>; 3] = Default::default();
        for (k, (_, field)) in schema.iter().enumerate() {
            let base = k * STATS;
            names.push(Some(field.name().clone()));
            types.push(Some(column_type_name(field)));
            mins.push(cell(base));
            maxes.push(cell(base + 1));
            unique.push(cell(base + 2).and_then(|v| v.parse::<i64>().ok()));
            mean.push(cell(base + 3).and_then(|v| v.parse::<f64>().ok()));
            sd.push(cell(base + 4).and_then(|v| v.parse::<f64>().ok()));
            for (q, out) in quartiles.iter_mut().enumerate() {
                out.push(cell(base + 5 + q));
            }
            let non_null = cell(base + 8).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
            counts.push(Some(total));
            nulls.push(Some(if total == 0 { 0.0 } else { 100.0 * (total - non_null) as f64 / total as f64 }));
        }
        let text = |v: &Vec<Option<String>>| Arc::new(StringArray::from(v.clone())) as ArrayRef;
        let fields = [
            ("column_name", DataType::Utf8),
            ("column_type", DataType::Utf8),
            ("min", DataType::Utf8),
            ("max", DataType::Utf8),
            ("approx_unique", DataType::Int64),
            ("avg", DataType::Float64),
            ("std", DataType::Float64),
            ("q25", DataType::Utf8),
            ("q50", DataType::Utf8),
            ("q75", DataType::Utf8),
            ("count", DataType::Int64),
            ("null_percentage", DataType::Float64),
        ];
        let out = Schema::new(fields.iter().map(|(name, ty)| Field::new(*name, ty.clone(), true)).collect::<Vec<_>>());
        let arrays: Vec<ArrayRef> = vec![
            text(&names),
            text(&types),
            text(&mins),
            text(&maxes),
            Arc::new(Int64Array::from(unique)),
            Arc::new(Float64Array::from(mean)),
            Arc::new(Float64Array::from(sd)),
            text(&quartiles[0]),
            text(&quartiles[1]),
            text(&quartiles[2]),
            Arc::new(Int64Array::from(counts)),
            Arc::new(Float64Array::from(nulls)),
        ];
        Ok(Output::Rows(RecordBatch::try_new(Arc::new(out), arrays)?))
    }
}
