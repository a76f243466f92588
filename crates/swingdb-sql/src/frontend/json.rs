//! JSON in SQL, as DuckDB spells it: `json_extract(j, path)` (the value as
//! JSON text), `json_extract_string(j, path)` (as plain text), the operators
//! `j -> path` and `j ->> path` for them, and `json_valid(j)`. JSON values are
//! text (`VARCHAR`; the type name `JSON` is accepted for it). A path is
//! `$.a.b[0]` (JSONPath), a key (`'a'`) or an array index (`0`); a missing
//! key, a wrong index or text that is not JSON gives NULL (DuckDB errors on
//! malformed JSON; `json_valid` tells them apart).

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::planner::{ExprPlanner, PlannerResult, RawBinaryExpr};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::sql::sqlparser::ast::BinaryOperator;
use serde_json::Value;
use std::sync::Arc;

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(i64),
}

/// The steps of `path`: JSONPath (`$.a["b c"][2]`), a key, or a number (an index).
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let Some(rest) = path.strip_prefix('$') else { return Some(vec![Step::Key(path.to_string())]) };
    let mut steps = Vec::new();
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                let start = i + 1;
                let mut end = start;
                while end < chars.len() && chars[end] != '.' && chars[end] != '[' {
                    end += 1;
                }
                let key: String = chars[start..end].iter().collect();
                steps.push(Step::Key(key.trim_matches('"').to_string()));
                i = end;
            }
            '[' => {
                let end = chars[i..].iter().position(|&c| c == ']')? + i;
                let inside: String = chars[i + 1..end].iter().collect();
                let inside = inside.trim();
                steps.push(match inside.parse::<i64>() {
                    Ok(n) => Step::Index(n),
                    Err(_) => Step::Key(inside.trim_matches(['"', '\'']).to_string()),
                });
                i = end + 1;
            }
            _ => return None,
        }
    }
    Some(steps)
}

fn walk<'a>(mut value: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    for step in steps {
        value = match (step, value) {
            (Step::Key(k), Value::Object(map)) => map.get(k)?,
            (Step::Index(n), Value::Array(items)) => {
                let at = if *n < 0 { items.len().checked_sub(n.unsigned_abs() as usize)? } else { *n as usize };
                items.get(at)?
            }
            _ => return None,
        };
    }
    Some(value)
}

/// What a JSON function answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Answer {
    /// The value as JSON text (`json_extract`, `->`).
    Json,
    /// Strings without their quotes, other values as JSON (`json_extract_string`, `->>`).
    Text,
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Extract {
    name: &'static str,
    answer: Answer,
    signature: Signature,
}

impl ScalarUDFImpl for Extract {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        if args.len() != 2 {
            return datafusion::common::plan_err!("{}(json, path) takes 2 arguments, got {}", self.name, args.len());
        }
        Ok(vec![DataType::Utf8, if args[1].is_integer() { DataType::Int64 } else { DataType::Utf8 }])
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = args.args.iter().map(|a| a.to_array(rows)).collect::<Result<Vec<ArrayRef>>>()?;
        let docs = arrays[0].as_string::<i32>();
        let paths: Vec<Option<Vec<Step>>> = match arrays[1].data_type() {
            DataType::Int64 => {
                let ints = arrays[1].as_primitive::<datafusion::arrow::datatypes::Int64Type>();
                (0..rows).map(|i| ints.is_valid(i).then(|| vec![Step::Index(ints.value(i))])).collect()
            }
            _ => {
                let texts = arrays[1].as_string::<i32>();
                (0..rows).map(|i| if texts.is_valid(i) { parse_path(texts.value(i)) } else { None }).collect()
            }
        };
        let out: StringArray = (0..rows)
            .map(|i| {
                let steps = paths[i].as_ref()?;
                if docs.is_null(i) {
                    return None;
                }
                let doc: Value = serde_json::from_str(docs.value(i)).ok()?;
                match (walk(&doc, steps)?, self.answer) {
                    (Value::Null, Answer::Text) => None,
                    (Value::String(s), Answer::Text) => Some(s.clone()),
                    (found, _) => Some(found.to_string()),
                }
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Valid {
    signature: Signature,
}

impl ScalarUDFImpl for Valid {
    fn name(&self) -> &str {
        "json_valid"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let array = args.args[0].to_array(args.number_rows)?;
        let docs = array.as_string::<i32>();
        let out: BooleanArray =
            docs.iter().map(|d| d.map(|d| serde_json::from_str::<serde::de::IgnoredAny>(d).is_ok())).collect();
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

fn extract(name: &'static str, answer: Answer) -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(Extract {
        name,
        answer,
        signature: Signature::user_defined(Volatility::Immutable),
    }))
}

/// The JSON functions, to register on a session.
pub fn functions() -> Vec<Arc<ScalarUDF>> {
    vec![
        extract("json_extract", Answer::Json),
        extract("json_extract_string", Answer::Text),
        Arc::new(ScalarUDF::new_from_impl(Valid {
            signature: Signature::exact(vec![DataType::Utf8], Volatility::Immutable),
        })),
    ]
}

/// Plans `->` and `->>` as `json_extract` and `json_extract_string`.
#[derive(Debug)]
pub struct JsonOperators;

impl ExprPlanner for JsonOperators {
    fn plan_binary_op(&self, expr: RawBinaryExpr, _schema: &DFSchema) -> Result<PlannerResult<RawBinaryExpr>> {
        let function = match expr.op {
            BinaryOperator::Arrow => extract("json_extract", Answer::Json),
            BinaryOperator::LongArrow => extract("json_extract_string", Answer::Text),
            _ => return Ok(PlannerResult::Original(expr)),
        };
        Ok(PlannerResult::Planned(Expr::ScalarFunction(ScalarFunction::new_udf(function, vec![expr.left, expr.right]))))
    }
}

/// `j ->> 'k' = 'v'` as `(j ->> 'k') = 'v'`, as PostgreSQL and DuckDB read
/// it: the parser binds `->`/`->>` looser than comparisons.
fn bind_arrows_tighter(e: &mut datafusion::sql::sqlparser::ast::Expr) {
    use datafusion::sql::sqlparser::ast::Expr as SqlExpr;
    let SqlExpr::BinaryOp { op: arrow @ (BinaryOperator::Arrow | BinaryOperator::LongArrow), right, .. } = e else {
        return;
    };
    let SqlExpr::BinaryOp { op: compare, .. } = right.as_ref() else { return };
    let comparison = matches!(
        compare,
        BinaryOperator::Eq
            | BinaryOperator::NotEq
            | BinaryOperator::Lt
            | BinaryOperator::LtEq
            | BinaryOperator::Gt
            | BinaryOperator::GtEq
    );
    if !comparison {
        return;
    }
    let arrow = arrow.clone();
    let SqlExpr::BinaryOp { left: json, right, .. } =
        std::mem::replace(e, SqlExpr::value(datafusion::sql::sqlparser::ast::Value::Null))
    else {
        unreachable!()
    };
    let SqlExpr::BinaryOp { left: path, op: compare, right: value } = *right else { unreachable!() };
    let extracted = SqlExpr::BinaryOp { left: json, op: arrow, right: path };
    *e = SqlExpr::BinaryOp { left: Box::new(extracted), op: compare, right: value };
}

/// The type name `JSON` read as `VARCHAR` (JSON values are text here) in
/// column definitions and casts.
pub fn json_as_text(statement: &mut datafusion::sql::parser::Statement) {
    use datafusion::sql::sqlparser::ast::{
        visit_expressions_mut, AlterTableOperation, DataType as SqlType, Expr as SqlExpr, Statement,
    };
    let text = |ty: &mut SqlType| {
        if matches!(ty, SqlType::JSON | SqlType::JSONB) {
            *ty = SqlType::Varchar(None);
        }
    };
    let datafusion::sql::parser::Statement::Statement(s) = statement else { return };
    match s.as_mut() {
        Statement::CreateTable(create) => create.columns.iter_mut().for_each(|c| text(&mut c.data_type)),
        Statement::AlterTable(alter) => {
            for op in &mut alter.operations {
                if let AlterTableOperation::AddColumn { column_def, .. } = op {
                    text(&mut column_def.data_type);
                }
            }
        }
        _ => {}
    }
    let _ = visit_expressions_mut(s.as_mut(), |e| {
        if let SqlExpr::Cast { data_type, .. } = e {
            text(data_type);
        }
        bind_arrows_tighter(e);
        std::ops::ControlFlow::<()>::Continue(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_walk_objects_and_arrays() {
        let doc: Value = serde_json::from_str(r#"{"a": {"b c": [10, {"d": "x"}]}, "n": null}"#).unwrap();
        let at = |p: &str| walk(&doc, &parse_path(p).unwrap()).map(|v| v.to_string());
        assert_eq!(at("$.a[\"b c\"][0]").as_deref(), Some("10"));
        assert_eq!(at("$.a['b c'][-1].d").as_deref(), Some("\"x\""));
        assert_eq!(at("a").as_deref(), Some(r#"{"b c":[10,{"d":"x"}]}"#));
        assert_eq!(at("$.missing"), None);
        assert_eq!(at("$.a[\"b c\"][5]"), None);
        assert!(parse_path("$x").is_none());
    }
}
