//! DuckDB's list functions that take a lambda: `list_transform(l, x -> x * 2)`
//! (also `list_apply`, `array_transform`, `array_apply`, `apply`),
//! `list_filter(l, x -> x > 0)` (`array_filter`, `filter`) and
//! `list_reduce(l, (acc, x) -> acc + x)` (`array_reduce`, `reduce`). A
//! transform or filter lambda may take the element's position too
//! (`(x, i) -> x * i`, from 1) and may read the row's columns.
//!
//! The parser reads `x -> body` as the JSON operator `->`; inside these
//! functions it is taken apart again into parameters and body. The call
//! becomes `__swingdb_list_<kind>(l, 'x, i', 'body', c1, c2...)`, the columns
//! the body reads from the row (`c1`...) passed as arguments and named
//! `__swingdb_captured_<n>` in the body. The function evaluates the body once
//! per batch over every element of every list (the row's values repeated
//! per element), planned with DataFusion's built-in functions.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Int64Array, ListArray, UInt32Array};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{cast, filter, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{DFSchema, Result as DFResult, ScalarValue};
use datafusion::execution::context::SessionState;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, Ident,
    ObjectName, Value,
};
use std::ops::ControlFlow;
use std::sync::{Arc, LazyLock};
use swingdb_storage::error::{Error, Result};

/// What a lambda function does with its lambda.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Transform,
    Filter,
    Reduce,
}

impl Kind {
    fn of(name: &str) -> Option<Kind> {
        match name {
            "list_transform" | "array_transform" | "list_apply" | "array_apply" | "apply" => Some(Kind::Transform),
            "list_filter" | "array_filter" | "filter" => Some(Kind::Filter),
            "list_reduce" | "array_reduce" | "reduce" => Some(Kind::Reduce),
            _ => None,
        }
    }

    fn function_name(self) -> &'static str {
        match self {
            Kind::Transform => "__swingdb_list_transform",
            Kind::Filter => "__swingdb_list_filter",
            Kind::Reduce => "__swingdb_list_reduce",
        }
    }
}

/// The name a column the body reads from the row goes by inside it.
const CAPTURED: &str = "__swingdb_captured_";

/// Rewrites a call of a lambda function (see the module documentation).
pub fn rewrite(expr: &mut Expr) -> Result<()> {
    let Expr::Function(function) = expr else { return Ok(()) };
    let [part] = function.name.0.as_slice() else { return Ok(()) };
    let Some(kind) = part.as_ident().and_then(|i| Kind::of(&i.value.to_lowercase())) else { return Ok(()) };
    let name = function.name.to_string();
    let FunctionArguments::List(list) = &function.args else { return Ok(()) };
    let args: Vec<&Expr> = list
        .args
        .iter()
        .filter_map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect();
    let [list_arg, lambda] = args.as_slice() else {
        return Err(Error::programming(format!("{name}() takes a list and a lambda, as in {name}(l, x -> x * 2)")));
    };
    let Some((params, mut body)) = split_lambda(lambda) else {
        return Err(Error::programming(format!(
            "{name}() takes a lambda as its second argument, as in {name}(l, x -> x * 2)"
        )));
    };
    let allowed = if kind == Kind::Reduce { 2..=2 } else { 1..=2 };
    if !allowed.contains(&params.len()) {
        let shape = if kind == Kind::Reduce { "(acc, x) -> ..." } else { "x -> ... or (x, i) -> ..." };
        return Err(Error::programming(format!("the lambda of {name}() takes {shape}")));
    }
    let param_names: Vec<String> = params.iter().map(crate::frontend::parse::identifier).collect();
    let mut captured: Vec<Expr> = Vec::new();
    let _ = visit_expressions_mut(&mut body, |e| {
        let read = match e {
            Expr::Identifier(ident) if !param_names.contains(&crate::frontend::parse::identifier(ident)) => true,
            Expr::CompoundIdentifier(_) => true,
            _ => false,
        };
        if read {
            let at = captured.iter().position(|c| c == e).unwrap_or_else(|| {
                captured.push(e.clone());
                captured.len() - 1
            });
            *e = Expr::Identifier(Ident::new(format!("{CAPTURED}{at}")));
        }
        ControlFlow::<()>::Continue(())
    });
    let text = |s: String| Expr::value(Value::SingleQuotedString(s));
    let mut call_args = vec![(*list_arg).clone(), text(param_names.join(",")), text(body.to_string())];
    call_args.extend(captured);
    *function = Function {
        name: ObjectName::from(vec![Ident::new(kind.function_name())]),
        args: FunctionArguments::List(datafusion::sql::sqlparser::ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: call_args.into_iter().map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e))).collect(),
            clauses: vec![],
        }),
        ..function.clone()
    };
    Ok(())
}

/// `params -> body` taken apart: the parser reads `->` as the JSON operator,
/// binding it looser or tighter than the operators around it, so the
/// lambda's arrow is the first `->` whose left side is a name or a
/// parenthesized list of names; the body is the argument with that arrow
/// replaced by its right side.
pub(super) fn split_lambda(arg: &Expr) -> Option<(Vec<Ident>, Expr)> {
    let mut body = arg.clone();
    let mut params = None;
    let _ = visit_expressions_mut(&mut body, |e| {
        if params.is_some() {
            return ControlFlow::Break(());
        }
        if let Expr::BinaryOp { left, op: BinaryOperator::Arrow, right } = e {
            let names = match left.as_ref() {
                Expr::Identifier(i) => Some(vec![i.clone()]),
                Expr::Nested(inner) => match inner.as_ref() {
                    Expr::Identifier(i) => Some(vec![i.clone()]),
                    _ => None,
                },
                Expr::Tuple(items) => {
                    items.iter().map(|i| if let Expr::Identifier(i) = i { Some(i.clone()) } else { None }).collect()
                }
                _ => None,
            };
            if let Some(names) = names {
                params = Some(names);
                *e = right.as_ref().clone();
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    Some((params?, body))
}

/// The lambda functions, to register in a session.
pub fn functions() -> Vec<ScalarUDF> {
    [Kind::Transform, Kind::Filter, Kind::Reduce]
        .into_iter()
        .map(|kind| {
            ScalarUDF::new_from_impl(ListLambda { kind, signature: Signature::variadic_any(Volatility::Immutable) })
        })
        .collect()
}

/// The session a body is planned in: DataFusion's built-in functions.
static PLANNER: LazyLock<SessionState> = LazyLock::new(|| SessionStateBuilder::new().with_default_features().build());

#[derive(Debug, PartialEq, Eq, Hash)]
struct ListLambda {
    kind: Kind,
    signature: Signature,
}

/// A lambda's parameters and body, read from the call's constant arguments.
fn lambda_of(scalars: &[Option<&ScalarValue>]) -> DFResult<(Vec<String>, String)> {
    let text = |i: usize| match scalars.get(i).copied().flatten() {
        Some(ScalarValue::Utf8(Some(s))) => Ok(s.clone()),
        _ => Err(datafusion::common::DataFusionError::Plan("a lambda function was called without its lambda".into())),
    };
    Ok((text(1)?.split(',').map(str::to_string).collect(), text(2)?))
}

/// The element type of the list `t`.
fn element(t: &DataType) -> DFResult<FieldRef> {
    match t {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => Ok(f.clone()),
        DataType::Null => Ok(Arc::new(Field::new("item", DataType::Null, true))),
        other => Err(datafusion::common::DataFusionError::Plan(format!(
            "a lambda function takes a list, not {}",
            crate::frontend::types::sql_name(other)
        ))),
    }
}

/// The schema a body is evaluated against: its parameters, then the columns it reads.
fn body_schema(params: &[String], param_types: &[DataType], captured: &[DataType]) -> Schema {
    let mut fields: Vec<Field> = params.iter().zip(param_types).map(|(p, t)| Field::new(p, t.clone(), true)).collect();
    fields.extend(captured.iter().enumerate().map(|(i, t)| Field::new(format!("{CAPTURED}{i}"), t.clone(), true)));
    Schema::new(fields)
}

/// The body planned against `schema`: its physical expression and result type.
fn plan_body(body: &str, schema: &Schema) -> DFResult<(Arc<dyn PhysicalExpr>, DataType)> {
    let df_schema = DFSchema::try_from(schema.clone())?;
    let expr = PLANNER.create_logical_expr(body, &df_schema)?;
    let physical = PLANNER.create_physical_expr(expr, &df_schema)?;
    let result = physical.data_type(schema)?;
    Ok((physical, result))
}

impl ListLambda {
    /// The types of the body's parameters, given the list's element type.
    fn param_types(&self, element: &DataType, params: usize) -> Vec<DataType> {
        match (self.kind, params) {
            (Kind::Reduce, _) => vec![element.clone(), element.clone()],
            (_, 1) => vec![element.clone()],
            _ => vec![element.clone(), DataType::Int64],
        }
    }
}

impl ScalarUDFImpl for ListLambda {
    fn name(&self) -> &str {
        self.kind.function_name()
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> DFResult<DataType> {
        Err(datafusion::common::DataFusionError::Internal("return_field_from_args is used".into()))
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DFResult<FieldRef> {
        let (params, body) = lambda_of(args.scalar_arguments)?;
        let item = element(args.arg_fields[0].data_type())?;
        let captured: Vec<DataType> = args.arg_fields[3..].iter().map(|f| f.data_type().clone()).collect();
        let schema = body_schema(&params, &self.param_types(item.data_type(), params.len()), &captured);
        let (_, result) = plan_body(&body, &schema)?;
        let data_type = match self.kind {
            Kind::Transform => DataType::new_list(result, true),
            Kind::Filter => DataType::new_list(item.data_type().clone(), true),
            Kind::Reduce => item.data_type().clone(),
        };
        Ok(Arc::new(Field::new(self.name(), data_type, true)))
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let scalars: Vec<Option<ScalarValue>> =
            args.args.iter().map(|a| if let ColumnarValue::Scalar(s) = a { Some(s.clone()) } else { None }).collect();
        let (params, body) = lambda_of(&scalars.iter().map(Option::as_ref).collect::<Vec<_>>())?;
        let item = element(arrays[0].data_type())?;
        let lists = cast(&arrays[0], &DataType::new_list(item.data_type().clone(), true))?;
        let lists = lists.as_list::<i32>();
        let captured = &arrays[3..];
        let captured_types: Vec<DataType> = captured.iter().map(|a| a.data_type().clone()).collect();
        let schema = Arc::new(body_schema(&params, &self.param_types(item.data_type(), params.len()), &captured_types));
        let (physical, _) = plan_body(&body, &schema)?;
        let offsets = lists.value_offsets();
        let (first, last) = (offsets[0] as usize, offsets[rows] as usize);
        let values = lists.values().slice(first, last - first);
        // The row and the position (from 1) of every element.
        let mut row_of = Vec::with_capacity(values.len());
        let mut position = Vec::with_capacity(values.len());
        for row in 0..rows {
            for k in 0..(offsets[row + 1] - offsets[row]) {
                row_of.push(row as u32);
                position.push(k as i64 + 1);
            }
        }
        let row_of = UInt32Array::from(row_of);
        let repeated = |rows: &UInt32Array| -> DFResult<Vec<ArrayRef>> {
            captured.iter().map(|c| Ok(take(c.as_ref(), rows, None)?)).collect()
        };
        let evaluate = |columns: Vec<ArrayRef>, len: usize| -> DFResult<ArrayRef> {
            let options = datafusion::arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(len));
            let batch = RecordBatch::try_new_with_options(schema.clone(), columns, &options)?;
            physical.evaluate(&batch)?.into_array(len)
        };
        let rebased = OffsetBuffer::new(offsets.iter().map(|o| o - offsets[0]).collect::<Vec<i32>>().into());
        let result: ArrayRef = match self.kind {
            Kind::Transform | Kind::Filter => {
                let mut columns = vec![values.clone()];
                if params.len() == 2 {
                    columns.push(Arc::new(Int64Array::from(position)));
                }
                columns.extend(repeated(&row_of)?);
                let out = evaluate(columns, values.len())?;
                if self.kind == Kind::Transform {
                    let field = Arc::new(Field::new("item", out.data_type().clone(), true));
                    Arc::new(ListArray::try_new(field, rebased, out, lists.nulls().cloned())?)
                } else {
                    let keep = out.as_boolean_opt().ok_or_else(|| {
                        datafusion::common::DataFusionError::Plan(format!(
                            "the lambda of a list filter must be true or false, not {}",
                            crate::frontend::types::sql_name(out.data_type())
                        ))
                    })?;
                    // NULL counts as false.
                    let keep: BooleanArray = keep.iter().map(|k| Some(k == Some(true))).collect();
                    let kept = filter(values.as_ref(), &keep)?;
                    let mut counts = Vec::with_capacity(rows);
                    for row in 0..rows {
                        let (a, b) = ((offsets[row] - offsets[0]) as usize, (offsets[row + 1] - offsets[0]) as usize);
                        counts.push(keep.slice(a, b - a).true_count());
                    }
                    Arc::new(ListArray::try_new(
                        item.clone(),
                        OffsetBuffer::from_lengths(counts),
                        kept,
                        lists.nulls().cloned(),
                    )?)
                }
            }
            Kind::Reduce => reduce(lists, &values, &evaluate, &repeated, rows)?,
        };
        Ok(ColumnarValue::Array(result))
    }
}

/// Folds each list left to right: `acc` starts as its first element, each
/// next element `x` makes it `body(acc, x)`; one evaluation per position,
/// over the lists that are that long. A NULL list gives NULL, an empty one
/// an error (as in DuckDB).
fn reduce(
    lists: &ListArray,
    values: &ArrayRef,
    evaluate: &dyn Fn(Vec<ArrayRef>, usize) -> DFResult<ArrayRef>,
    repeated: &dyn Fn(&UInt32Array) -> DFResult<Vec<ArrayRef>>,
    rows: usize,
) -> DFResult<ArrayRef> {
    let offsets = lists.value_offsets();
    let start = |row: usize| (offsets[row] - offsets[0]) as u32;
    let length = |row: usize| if lists.is_null(row) { 0 } else { (offsets[row + 1] - offsets[row]) as usize };
    if (0..rows).any(|r| lists.is_valid(r) && length(r) == 0) {
        return Err(datafusion::common::DataFusionError::Execution(
            "list_reduce of an empty list has no value (as in DuckDB): filter out empty lists first".into(),
        ));
    }
    // Rows with at least one element, and their accumulators.
    let mut live: Vec<u32> = (0..rows).filter(|&r| length(r) > 0).map(|r| r as u32).collect();
    let mut acc =
        take(values.as_ref(), &UInt32Array::from(live.iter().map(|&r| start(r as usize)).collect::<Vec<_>>()), None)?;
    let mut done: Vec<(u32, ArrayRef)> = Vec::new();
    let mut k = 1;
    while !live.is_empty() {
        // Lists that end here are done.
        let (going, ending): (Vec<usize>, Vec<usize>) = (0..live.len()).partition(|&i| length(live[i] as usize) > k);
        for &i in &ending {
            done.push((live[i], acc.slice(i, 1)));
        }
        if going.is_empty() {
            break;
        }
        let going_idx = UInt32Array::from(going.iter().map(|&i| i as u32).collect::<Vec<_>>());
        let rows_going: Vec<u32> = going.iter().map(|&i| live[i]).collect();
        let x = take(
            values.as_ref(),
            &UInt32Array::from(rows_going.iter().map(|&r| start(r as usize) + k as u32).collect::<Vec<_>>()),
            None,
        )?;
        let mut columns = vec![take(acc.as_ref(), &going_idx, None)?, x];
        columns.extend(repeated(&UInt32Array::from(rows_going.clone()))?);
        let next = evaluate(columns, rows_going.len())?;
        acc = cast(&next, values.data_type())?;
        live = rows_going;
        k += 1;
    }
    // Put the results in row order, NULL for rows without elements.
    let mut by_row: Vec<Option<ArrayRef>> = vec![None; rows];
    for (row, value) in done {
        by_row[row as usize] = Some(value);
    }
    let null = datafusion::arrow::array::new_null_array(values.data_type(), 1);
    let parts: Vec<&dyn Array> = by_row.iter().map(|v| v.as_deref().unwrap_or(null.as_ref())).collect();
    Ok(datafusion::arrow::compute::concat(&parts)?)
}
