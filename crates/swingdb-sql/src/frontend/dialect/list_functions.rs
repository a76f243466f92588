//! DuckDB's list functions that DataFusion lacks, with DuckDB's answers:
//! `list_where(values, mask)` (the values where the mask is true),
//! `list_select(values, positions)` (1-based; NULL past the end),
//! `list_grade_up(list[, 'ASC'|'DESC'])` (the positions in sorted order,
//! NULLs last, ties in order), and `list_aggregate(list, 'name', extra...)`,
//! which runs the aggregate function of that name over each list (with its
//! aliases `list_aggr`, `aggregate`, `array_aggregate`, `array_aggr`; the
//! others with `array_` for `list_` too). NULL lists give NULL.

use crate::frontend::dialect::functions::renamed;
use crate::frontend::types::sql_name;
use datafusion::arrow::array::{new_null_array, Array, ArrayRef, AsArray, Int64Array, ListArray, UInt32Array};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::{cast, cast_with_options, concat, sort_to_indices, take, CastOptions, SortOptions};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::common::{exec_err, plan_err, Result, ScalarValue};
use datafusion::logical_expr::function::AccumulatorArgs;
use datafusion::logical_expr::type_coercion::functions::fields_with_udf;
use datafusion::logical_expr::{
    AggregateUDF, ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::physical_expr::expressions::{Column, Literal};
use datafusion::physical_expr::PhysicalExpr;
use std::collections::HashMap;
use std::sync::Arc;

/// What a function answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Where,
    Select,
    GradeUp,
}

/// `list_where`, `list_select` and `list_grade_up`, under each of their names.
pub fn functions() -> Vec<ScalarUDF> {
    [
        ("list_where", Kind::Where),
        ("array_where", Kind::Where),
        ("list_select", Kind::Select),
        ("array_select", Kind::Select),
        ("list_grade_up", Kind::GradeUp),
        ("array_grade_up", Kind::GradeUp),
        ("grade_up", Kind::GradeUp),
    ]
    .into_iter()
    .map(|(name, kind)| {
        ScalarUDF::new_from_impl(ListFunction { name, kind, signature: Signature::user_defined(Volatility::Immutable) })
    })
    .collect()
}

/// `list_aggregate` under each of its names, running the aggregates of
/// `aggregates` (a session's, by name).
pub fn list_aggregates(aggregates: &HashMap<String, Arc<AggregateUDF>>) -> Vec<ScalarUDF> {
    ["list_aggregate", "list_aggr", "aggregate", "array_aggregate", "array_aggr"]
        .into_iter()
        .map(|name| {
            ScalarUDF::new_from_impl(ListAggregate {
                name,
                aggregates: Aggregates(aggregates.clone()),
                signature: Signature::user_defined(Volatility::Immutable),
            })
        })
        .collect()
}

/// The type a list argument is read as (a `List`), if it is a list.
fn as_list(t: &DataType) -> Option<DataType> {
    match t {
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            Some(DataType::new_list(item.data_type().clone(), true))
        }
        DataType::Null => Some(DataType::new_list(DataType::Null, true)),
        _ => None,
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct ListFunction {
    name: &'static str,
    kind: Kind,
    signature: Signature,
}

impl ScalarUDFImpl for ListFunction {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name;
        match (self.kind, args) {
            (Kind::Where | Kind::Select, [values, other]) => {
                let item = if self.kind == Kind::Where { DataType::Boolean } else { DataType::Int64 };
                match (as_list(values), as_list(other)) {
                    (Some(values), Some(_)) => Ok(vec![values, DataType::new_list(item, true)]),
                    _ => plan_err!("{name}() takes two lists, not ({}, {})", sql_name(values), sql_name(other)),
                }
            }
            (Kind::GradeUp, [list, rest @ ..]) if rest.len() <= 2 => match as_list(list) {
                Some(list) => Ok(std::iter::once(list).chain(rest.iter().map(|_| DataType::Utf8)).collect()),
                None => plan_err!("{name}() takes a list, not {}", sql_name(list)),
            },
            _ => plan_err!("{name}() does not take {} arguments", args.len()),
        }
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::GradeUp => DataType::new_list(DataType::Int64, true),
            _ => args[0].clone(),
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let lists = arrays[0].as_list::<i32>();
        // The mask or positions (grade_up's other arguments are options).
        let other = arrays.get(1).filter(|_| self.kind != Kind::GradeUp).map(|a| a.as_list::<i32>());
        let item_type = match (self.kind, lists.data_type()) {
            (Kind::GradeUp, _) => DataType::Int64,
            (_, DataType::List(item)) => item.data_type().clone(),
            _ => unreachable!("coerced to a list"),
        };
        let mut parts: Vec<ArrayRef> = Vec::with_capacity(lists.len());
        let mut lengths = Vec::with_capacity(lists.len());
        for row in 0..lists.len() {
            if lists.is_null(row) || other.is_some_and(|o| o.is_null(row)) {
                lengths.push(0);
                continue;
            }
            let values = lists.value(row);
            let picked = match self.kind {
                Kind::Where => {
                    let mask = other.unwrap().value(row);
                    let n = values.len();
                    // A mask longer than the list picks NULLs past its end.
                    let positions =
                        self.positions(mask.as_boolean().iter().enumerate().filter_map(|(i, m)| match m {
                            Some(true) => Some(Ok((i < n).then_some(i as u32))),
                            Some(false) => None,
                            None => Some(Err(())),
                        }))?;
                    take(&values, &positions, None)?
                }
                Kind::Select => {
                    let wanted = other.unwrap().value(row);
                    let n = values.len() as i64;
                    let positions = self.positions(
                        wanted.as_primitive::<datafusion::arrow::datatypes::Int64Type>().iter().map(|p| match p {
                            Some(p) if (1..=n).contains(&p) => Ok(Some(p as u32 - 1)),
                            Some(_) => Ok(None),
                            None => Err(()),
                        }),
                    )?;
                    take(&values, &positions, None)?
                }
                Kind::GradeUp => Arc::new(grade_up(&values, &arrays[1..], row)?),
            };
            lengths.push(picked.len());
            parts.push(picked);
        }
        let values = match parts.is_empty() {
            true => datafusion::arrow::array::new_empty_array(&item_type),
            false => concat(&parts.iter().map(|p| p.as_ref()).collect::<Vec<_>>())?,
        };
        let field = Arc::new(Field::new_list_field(item_type, true));
        // A NULL second list makes the row NULL too.
        let nulls = NullBuffer::union(lists.logical_nulls().as_ref(), other.and_then(|o| o.logical_nulls()).as_ref());
        let out = ListArray::try_new(field, OffsetBuffer::from_lengths(lengths), values, nulls)?;
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

impl ListFunction {
    /// The positions to take; a NULL in the second list is an error, as in DuckDB.
    fn positions(&self, picks: impl Iterator<Item = std::result::Result<Option<u32>, ()>>) -> Result<UInt32Array> {
        match picks.collect::<std::result::Result<UInt32Array, ()>>() {
            Ok(positions) => Ok(positions),
            Err(()) => exec_err!("{}(): the second list must not hold NULLs", self.name),
        }
    }
}

/// The 1-based positions of `values` in sorted order (the order named in
/// `options` of `row`: 'ASC' or 'DESC', then 'NULLS FIRST' or 'NULLS LAST').
fn grade_up(values: &ArrayRef, options: &[ArrayRef], row: usize) -> Result<Int64Array> {
    let option = |i: usize| {
        options.get(i).filter(|o| o.is_valid(row)).map(|o| o.as_string::<i32>().value(row).to_ascii_uppercase())
    };
    let descending = match option(0).as_deref() {
        None | Some("ASC") => false,
        Some("DESC") => true,
        Some(other) => return exec_err!("list_grade_up: the order is 'ASC' or 'DESC', not '{other}'"),
    };
    let nulls_first = match option(1).as_deref() {
        None | Some("NULLS LAST") => false,
        Some("NULLS FIRST") => true,
        Some(other) => return exec_err!("list_grade_up: NULLs go 'NULLS FIRST' or 'NULLS LAST', not '{other}'"),
    };
    // sort_to_indices is stable: equal values keep their order.
    let order = sort_to_indices(values, Some(SortOptions { descending, nulls_first }), None)?;
    Ok(order.values().iter().map(|&i| i as i64 + 1).collect())
}

/// A session's aggregate functions by name (compared by their names only).
#[derive(Debug)]
struct Aggregates(HashMap<String, Arc<AggregateUDF>>);

impl PartialEq for Aggregates {
    fn eq(&self, other: &Self) -> bool {
        let mut names: Vec<_> = self.0.keys().collect();
        let mut others: Vec<_> = other.0.keys().collect();
        names.sort();
        others.sort();
        names == others
    }
}

impl Eq for Aggregates {}

impl std::hash::Hash for Aggregates {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.len().hash(state);
    }
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct ListAggregate {
    name: &'static str,
    aggregates: Aggregates,
    signature: Signature,
}

/// How a list's items are aggregated: the function, the type they are cast
/// to first, the constant arguments after them, and the answer's type.
struct Plan {
    function: Arc<AggregateUDF>,
    input: FieldRef,
    extras: Vec<ScalarValue>,
    output: FieldRef,
    /// An integer `sum`, totalled as DECIMAL(38,0) and narrowed with an
    /// overflow check (DataFusion's own integer sum wraps around).
    checked_sum: bool,
}

impl ListAggregate {
    fn plan(&self, list: &DataType, name: Option<&ScalarValue>, extras: &[Option<&ScalarValue>]) -> Result<Plan> {
        let this = self.name;
        let item = match as_list(list) {
            Some(DataType::List(item)) => item,
            _ => return plan_err!("{this}(list, 'function'): the first argument is a list, not {}", sql_name(list)),
        };
        let name = match name {
            Some(ScalarValue::Utf8(Some(n)) | ScalarValue::Utf8View(Some(n)) | ScalarValue::LargeUtf8(Some(n))) => {
                n.to_lowercase()
            }
            _ => return plan_err!("{this}(list, 'function'): the function is named by constant text"),
        };
        let name = renamed(&name).unwrap_or(&name).to_string();
        let Some(function) = self.aggregates.0.get(&name).cloned() else {
            return plan_err!("{this}(): there is no aggregate function named '{name}'");
        };
        let extras = extras
            .iter()
            .map(|e| {
                e.cloned().ok_or_else(|| {
                    datafusion::common::DataFusionError::Plan(format!(
                        "{this}(): the arguments after the function's name must be constants"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // The items of `[]` have no type: integers, as in DuckDB.
        let item_type = match item.data_type() {
            DataType::Null => DataType::Int64,
            other => other.clone(),
        };
        // string_agg's separator is a comma unless given, as DuckDB's.
        let extras = match (name.as_str(), extras.is_empty()) {
            ("string_agg", true) => vec![ScalarValue::Utf8(Some(",".into()))],
            _ => extras,
        };
        let checked_sum = name == "sum" && item_type.is_integer();
        let item_type = if checked_sum { DataType::Decimal128(38, 0) } else { item_type };
        let given: Vec<FieldRef> = std::iter::once(Arc::new(Field::new("item", item_type, true)))
            .chain(extras.iter().map(|e| Arc::new(Field::new("extra", e.data_type(), true))))
            .collect();
        let fields = fields_with_udf(&given, function.as_ref())?;
        let output = function.return_field(&fields)?;
        let extras =
            extras.iter().zip(&fields[1..]).map(|(e, f)| e.cast_to(f.data_type())).collect::<Result<Vec<_>>>()?;
        Ok(Plan { function, input: fields[0].clone(), extras, output, checked_sum })
    }
}

impl ScalarUDFImpl for ListAggregate {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        match args {
            [list, _, ..] if as_list(list).is_some() => {
                Ok(std::iter::once(as_list(list).unwrap()).chain(args[1..].iter().cloned()).collect())
            }
            _ => plan_err!("{}() takes (list, 'function name', ...)", self.name),
        }
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        plan_err!("{}(): return_field_from_args answers", self.name)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        let plan = self.plan(args.arg_fields[0].data_type(), args.scalar_arguments[1], &args.scalar_arguments[2..])?;
        let output = if plan.checked_sum { DataType::Int64 } else { plan.output.data_type().clone() };
        Ok(Arc::new(Field::new(self.name, output, true)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = |i: usize| match &args.args[i] {
            ColumnarValue::Scalar(s) => Some(s),
            ColumnarValue::Array(_) => None,
        };
        let extras: Vec<_> = (2..args.args.len()).map(scalar).collect();
        let plan = self.plan(args.arg_fields[0].data_type(), scalar(1), &extras)?;
        let lists = args.args[0].to_array(args.number_rows)?;
        let lists = lists.as_list::<i32>();
        let schema = Schema::new(
            std::iter::once(plan.input.clone())
                .chain(plan.extras.iter().map(|e| Arc::new(Field::new("extra", e.data_type(), true))))
                .collect::<Vec<_>>(),
        );
        let exprs: Vec<Arc<dyn PhysicalExpr>> =
            std::iter::once(Arc::new(Column::new("item", 0)) as Arc<dyn PhysicalExpr>)
                .chain(plan.extras.iter().map(|e| Arc::new(Literal::new(e.clone())) as Arc<dyn PhysicalExpr>))
                .collect();
        let expr_fields: Vec<FieldRef> = schema.fields().iter().cloned().collect();
        let mut answers = Vec::with_capacity(lists.len());
        for row in 0..lists.len() {
            if lists.is_null(row) {
                answers.push(ScalarValue::try_from(plan.output.data_type())?);
                continue;
            }
            let mut accumulator = plan.function.accumulator(AccumulatorArgs {
                return_field: plan.output.clone(),
                schema: &schema,
                ignore_nulls: false,
                order_bys: &[],
                is_reversed: false,
                name: self.name,
                is_distinct: false,
                exprs: &exprs,
                expr_fields: &expr_fields,
            })?;
            let items = cast(&lists.value(row), plan.input.data_type())?;
            let mut inputs = vec![items.clone()];
            for extra in &plan.extras {
                inputs.push(extra.to_array_of_size(items.len())?);
            }
            accumulator.update_batch(&inputs)?;
            answers.push(accumulator.evaluate()?);
        }
        let out = match answers.is_empty() {
            true => new_null_array(plan.output.data_type(), 0),
            false => ScalarValue::iter_to_array(answers)?,
        };
        let out = match plan.checked_sum {
            true => match cast_with_options(&out, &DataType::Int64, &CastOptions { safe: false, ..Default::default() })
            {
                Ok(out) => out,
                Err(_) => return exec_err!("{}(list, 'sum'): a total is out of range for BIGINT", self.name),
            },
            false => out,
        };
        Ok(ColumnarValue::Array(out))
    }
}
