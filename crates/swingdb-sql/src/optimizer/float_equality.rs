//! Floats compared as SQL compares them. Arrow's kernels compare, hash and
//! sort floating-point values by their bits' total order, in which `-0.0 <
//! 0.0` and a NaN with its sign bit set (what `-x`, `inf - inf` or `0 * inf`
//! give on x86) sorts below every number. In SQL (DuckDB, PostgreSQL) `-0.0 =
//! 0.0`, and every NaN is one value, equal to itself and above every number.
//! So `WHERE d = 0`, `GROUP BY d`, `DISTINCT`, joins, `IN`, `NULLIF`,
//! `count(DISTINCT d)` and `ORDER BY d, e` answered differently for -0.0 than
//! for 0.0.
//!
//! An analyzer rule, run after type coercion, puts [`float_key`] (which
//! turns -0.0 into 0.0 and every NaN into the positive one) around every
//! float that is compared, grouped, hashed or sorted: both sides of a
//! comparison (`=`, `<`, `IS DISTINCT FROM`, ...), `IN` lists and subqueries,
//! `BETWEEN`, `CASE x WHEN`, `NULLIF`, join keys, GROUP BY keys, DISTINCT,
//! aggregates over DISTINCT values, window partitions and orders, ORDER BY
//! keys. Output columns keep their names. A grouped or distinct -0.0 is
//! answered as 0.0 (DuckDB answers either, by which row came first).
//!
//! `min` and `max` of floats go through [`FloatOrder`]: DataFusion's
//! grouped accumulators start from the largest finite number (so `max` of
//! -inf alone was -1.8e308) and let the value after a NaN replace it. The
//! floats are mapped to integers in SQL's order (NaN above +inf), the
//! integers' minimum or maximum taken, and mapped back.
//!
//! A filter on `float_key(d)` is not used to skip segments by their min/max
//! (the min/max statistics do not know about it); only float columns are
//! affected, and their values stay views of the stored data.

use crate::optimizer::node_expressions::input_schema;
use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::compute::kernels::arity::unary;
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type, Int64Type};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{DFSchema, Result as DFResult, ScalarValue};
use datafusion::logical_expr::expr::{InList, InSubquery, ScalarFunction, Sort};
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::utils::merge_schema;
use datafusion::logical_expr::{
    Between, BinaryExpr, Case, Cast, ColumnarValue, Distinct, Expr, ExprSchemable, LogicalPlan, Projection,
    ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Subquery, Volatility,
};
use datafusion::optimizer::AnalyzerRule;
use std::sync::{Arc, LazyLock};

/// The analyzer rule that compares floats as SQL does (see the module docs).
#[derive(Debug, Default)]
pub struct FloatEquality;

impl AnalyzerRule for FloatEquality {
    fn name(&self) -> &str {
        "float_equality"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(rewrite_plan).data()
    }
}

/// `float_key(x)`: `x` with -0.0 made 0.0 and every NaN the positive NaN, so
/// that bit-wise comparisons, hashes and sorts treat equal floats alike.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FloatKey {
    signature: Signature,
}

static FLOAT_KEY: LazyLock<Arc<ScalarUDF>> = LazyLock::new(|| {
    Arc::new(ScalarUDF::new_from_impl(FloatKey {
        signature: Signature::uniform(1, vec![DataType::Float32, DataType::Float64], Volatility::Immutable),
    }))
});

/// The function [`FloatKey`].
pub fn float_key() -> Arc<ScalarUDF> {
    FLOAT_KEY.clone()
}

fn key64(v: f64) -> f64 {
    if v.is_nan() {
        f64::NAN
    } else if v == 0.0 {
        0.0
    } else {
        v
    }
}

fn key32(v: f32) -> f32 {
    if v.is_nan() {
        f32::NAN
    } else if v == 0.0 {
        0.0
    } else {
        v
    }
}

impl ScalarUDFImpl for FloatKey {
    fn name(&self) -> &str {
        "float_key"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(arg_types[0].clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        Ok(match &args.args[0] {
            ColumnarValue::Scalar(ScalarValue::Float64(v)) => ColumnarValue::Scalar(ScalarValue::Float64(v.map(key64))),
            ColumnarValue::Scalar(ScalarValue::Float32(v)) => ColumnarValue::Scalar(ScalarValue::Float32(v.map(key32))),
            ColumnarValue::Scalar(other) => ColumnarValue::Scalar(other.clone()),
            ColumnarValue::Array(array) => ColumnarValue::Array(match array.data_type() {
                DataType::Float64 => {
                    Arc::new(unary::<Float64Type, _, Float64Type>(array.as_primitive(), key64)) as ArrayRef
                }
                DataType::Float32 => Arc::new(unary::<Float32Type, _, Float32Type>(array.as_primitive(), key32)),
                _ => array.clone(),
            }),
        })
    }
}

/// `float_order(x)` (a DOUBLE to a BIGINT) and `float_from_order(k)` (back):
/// a BIGINT whose order is SQL's order of the DOUBLEs, NaN above +inf; -0.0
/// and every NaN are taken as [`float_key`] takes them.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct FloatOrder {
    back: bool,
    signature: Signature,
}

static FLOAT_ORDER: LazyLock<[Arc<ScalarUDF>; 2]> = LazyLock::new(|| {
    [false, true].map(|back| {
        let from = if back { DataType::Int64 } else { DataType::Float64 };
        Arc::new(ScalarUDF::new_from_impl(FloatOrder {
            back,
            signature: Signature::exact(vec![from], Volatility::Immutable),
        }))
    })
});

/// The BIGINT of `v` in SQL's order: the bits of a positive float ordered as
/// integers already; those of a negative one are flipped below them.
fn order_of(v: f64) -> i64 {
    let bits = key64(v).to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

fn float_of(k: i64) -> f64 {
    f64::from_bits((k ^ (((k >> 63) as u64) >> 1) as i64) as u64)
}

impl ScalarUDFImpl for FloatOrder {
    fn name(&self) -> &str {
        if self.back {
            "float_from_order"
        } else {
            "float_order"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(if self.back { DataType::Float64 } else { DataType::Int64 })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        Ok(match (&args.args[0], self.back) {
            (ColumnarValue::Scalar(ScalarValue::Float64(v)), false) => {
                ColumnarValue::Scalar(ScalarValue::Int64(v.map(order_of)))
            }
            (ColumnarValue::Scalar(ScalarValue::Int64(k)), true) => {
                ColumnarValue::Scalar(ScalarValue::Float64(k.map(float_of)))
            }
            (ColumnarValue::Array(a), false) => {
                ColumnarValue::Array(Arc::new(unary::<Float64Type, _, Int64Type>(a.as_primitive(), order_of)))
            }
            (ColumnarValue::Array(a), true) => {
                ColumnarValue::Array(Arc::new(unary::<Int64Type, _, Float64Type>(a.as_primitive(), float_of)))
            }
            (other, _) => {
                return Err(datafusion::error::DataFusionError::Internal(format!(
                    "{} of {:?}",
                    self.name(),
                    other.data_type()
                )))
            }
        })
    }
}

/// The float type whose `min` / `max` `expr` is (an aggregate or window
/// function, maybe aliased), if it is one.
fn min_max_of_float(expr: &Expr, schema: &DFSchema) -> Option<DataType> {
    let (name, args) = match expr {
        Expr::Alias(alias) => return min_max_of_float(&alias.expr, schema),
        Expr::AggregateFunction(agg) => (agg.func.name(), &agg.params.args),
        Expr::WindowFunction(window) => (window.fun.name(), &window.params.args),
        _ => return None,
    };
    if !(name == "min" || name == "max") || args.len() != 1 {
        return None;
    }
    args[0].get_type(schema).ok().filter(is_float)
}

/// `min(x)` / `max(x)` of a float as `min(float_order(x))`: a BIGINT.
fn ordered_arg(expr: Expr) -> Expr {
    let order = FLOAT_ORDER[0].clone();
    // A REAL is widened (a DOUBLE's cast to itself is simplified away).
    let arg = |a: Expr| {
        let a = Expr::Cast(Cast::new(Box::new(a), DataType::Float64));
        Expr::ScalarFunction(ScalarFunction::new_udf(order.clone(), vec![a]))
    };
    match expr {
        Expr::Alias(mut alias) => {
            alias.expr = Box::new(ordered_arg(*alias.expr));
            Expr::Alias(alias)
        }
        Expr::AggregateFunction(mut agg) => {
            agg.params.args = agg.params.args.into_iter().map(arg).collect();
            Expr::AggregateFunction(agg)
        }
        Expr::WindowFunction(mut window) => {
            window.params.args = window.params.args.into_iter().map(arg).collect();
            Expr::WindowFunction(window)
        }
        other => other,
    }
}

/// An aggregate or window node whose `min` / `max` of floats run over
/// [`FloatOrder`]'s integers, under a projection that maps them back (same
/// names and types): DataFusion's own accumulators get -inf and NaN wrong
/// (see the module docs).
fn ordered_min_max(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let (exprs, input, first) = match &plan {
        // Grouping sets add a column of their own after the groups.
        LogicalPlan::Aggregate(agg) if agg.group_expr.iter().any(|e| matches!(e, Expr::GroupingSet(_))) => {
            return Ok(Transformed::no(plan));
        }
        LogicalPlan::Aggregate(agg) => (&agg.aggr_expr, &agg.input, agg.group_expr.len()),
        LogicalPlan::Window(window) => (&window.window_expr, &window.input, window.input.schema().fields().len()),
        _ => return Ok(Transformed::no(plan)),
    };
    let schema = merge_schema(&[input.as_ref()]);
    let floats: Vec<Option<DataType>> = exprs.iter().map(|e| min_max_of_float(e, &schema)).collect();
    if floats.iter().all(Option::is_none) {
        return Ok(Transformed::no(plan));
    }
    let names = NamePreserver::new(&plan);
    let output = plan.schema().clone();
    let rewrite = |exprs: Vec<Expr>| -> Vec<Expr> {
        exprs
            .into_iter()
            .zip(&floats)
            .map(|(e, float)| match float {
                Some(_) => {
                    let name = names.save(&e);
                    name.restore(ordered_arg(e))
                }
                None => e,
            })
            .collect()
    };
    let rewritten = match plan {
        LogicalPlan::Aggregate(agg) => LogicalPlan::Aggregate(datafusion::logical_expr::Aggregate::try_new(
            agg.input,
            agg.group_expr,
            rewrite(agg.aggr_expr),
        )?),
        LogicalPlan::Window(window) => {
            LogicalPlan::Window(datafusion::logical_expr::Window::try_new(rewrite(window.window_expr), window.input)?)
        }
        _ => unreachable!("matched above"),
    };
    let back = FLOAT_ORDER[1].clone();
    let columns = output
        .iter()
        .enumerate()
        .map(|(i, (qualifier, field))| {
            let column = Expr::Column((qualifier, field).into());
            match i.checked_sub(first).and_then(|j| floats[j].clone()) {
                Some(typ) => {
                    let value = Expr::ScalarFunction(ScalarFunction::new_udf(back.clone(), vec![column]));
                    let value = match typ {
                        DataType::Float64 => value,
                        typ => Expr::Cast(Cast::new(Box::new(value), typ)),
                    };
                    value.alias_qualified(qualifier.cloned(), field.name())
                }
                None => column,
            }
        })
        .collect();
    let projected = Projection::try_new(columns, Arc::new(rewritten))?;
    Ok(Transformed::yes(LogicalPlan::Projection(projected)))
}

fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float32 | DataType::Float64)
}

fn is_float_expr(expr: &Expr, schema: &DFSchema) -> bool {
    expr.get_type(schema).is_ok_and(|t| is_float(&t))
}

fn is_key(expr: &Expr) -> bool {
    matches!(expr, Expr::ScalarFunction(call) if call.func.name() == "float_key")
}

/// `float_key(expr)`; a literal is turned into its key at once.
fn keyed(expr: Expr) -> Expr {
    match expr {
        Expr::Literal(ScalarValue::Float64(v), meta) => Expr::Literal(ScalarValue::Float64(v.map(key64)), meta),
        Expr::Literal(ScalarValue::Float32(v), meta) => Expr::Literal(ScalarValue::Float32(v.map(key32)), meta),
        e if is_key(&e) => e,
        e => Expr::ScalarFunction(ScalarFunction::new_udf(float_key(), vec![e])),
    }
}

/// `expr` keyed if it is a float.
fn keyed_if_float(expr: Expr, schema: &DFSchema) -> Expr {
    match is_float_expr(&expr, schema) {
        true => keyed(expr),
        false => expr,
    }
}

/// Keys the floats one expression node compares.
fn rewrite_expr(expr: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    Ok(match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right })
            if super::is_comparison(op)
                && (is_float_expr(&left, schema) || is_float_expr(&right, schema))
                && !(is_key(&left) && is_key(&right)) =>
        {
            Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(Box::new(keyed(*left)), op, Box::new(keyed(*right)))))
        }
        Expr::InList(InList { expr, list, negated }) if is_float_expr(&expr, schema) && !is_key(&expr) => {
            let list = list.into_iter().map(keyed).collect();
            Transformed::yes(Expr::InList(InList::new(Box::new(keyed(*expr)), list, negated)))
        }
        Expr::Between(Between { expr, negated, low, high }) if is_float_expr(&expr, schema) && !is_key(&expr) => {
            Transformed::yes(Expr::Between(Between::new(
                Box::new(keyed(*expr)),
                negated,
                Box::new(keyed(*low)),
                Box::new(keyed(*high)),
            )))
        }
        Expr::Case(Case { expr: Some(operand), when_then_expr, else_expr })
            if is_float_expr(&operand, schema) && !is_key(&operand) =>
        {
            let when_then_expr = when_then_expr.into_iter().map(|(w, t)| (Box::new(keyed(*w)), t)).collect();
            Transformed::yes(Expr::Case(Case { expr: Some(Box::new(keyed(*operand))), when_then_expr, else_expr }))
        }
        Expr::ScalarFunction(mut call)
            if call.func.name() == "nullif" && call.args.iter().any(|a| is_float_expr(a, schema) && !is_key(a)) =>
        {
            call.args = call.args.into_iter().map(|a| keyed_if_float(a, schema)).collect();
            Transformed::yes(Expr::ScalarFunction(call))
        }
        Expr::AggregateFunction(mut agg)
            if agg.params.distinct && agg.params.args.iter().any(|a| is_float_expr(a, schema) && !is_key(a)) =>
        {
            agg.params.args = agg.params.args.into_iter().map(|a| keyed_if_float(a, schema)).collect();
            Transformed::yes(Expr::AggregateFunction(agg))
        }
        Expr::WindowFunction(mut window)
            if window.params.partition_by.iter().any(|e| is_float_expr(e, schema) && !is_key(e))
                || window.params.order_by.iter().any(|s| is_float_expr(&s.expr, schema) && !is_key(&s.expr)) =>
        {
            let params = &mut window.params;
            params.partition_by =
                std::mem::take(&mut params.partition_by).into_iter().map(|e| keyed_if_float(e, schema)).collect();
            params.order_by = std::mem::take(&mut params.order_by).into_iter().map(|s| keyed_sort(s, schema)).collect();
            Transformed::yes(Expr::WindowFunction(window))
        }
        Expr::InSubquery(InSubquery { expr, subquery, negated }) if is_float_expr(&expr, schema) && !is_key(&expr) => {
            let plan = keyed_output(Arc::unwrap_or_clone(subquery.subquery))?;
            let subquery = Subquery { subquery: Arc::new(plan), ..subquery };
            Transformed::yes(Expr::InSubquery(InSubquery::new(Box::new(keyed(*expr)), subquery, negated)))
        }
        other => Transformed::no(other),
    })
}

fn keyed_sort(sort: Sort, schema: &DFSchema) -> Sort {
    Sort { expr: keyed_if_float(sort.expr, schema), ..sort }
}

/// The one column of an `IN` subquery's `plan`, keyed, under a name of its
/// own (the subquery's own name may be taken again when it is decorrelated).
fn keyed_output(plan: LogicalPlan) -> DFResult<LogicalPlan> {
    let schema = plan.schema().clone();
    let exprs = schema
        .iter()
        .map(|(qualifier, field)| {
            let column = Expr::Column((qualifier, field).into());
            match is_float(field.data_type()) {
                true => keyed(column).alias(format!("float_key({})", field.name())),
                false => column,
            }
        })
        .collect();
    Ok(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(plan))?))
}

/// `plan` under a projection that keys its float columns (same names).
fn keyed_columns(plan: LogicalPlan) -> DFResult<LogicalPlan> {
    let schema = plan.schema().clone();
    if !schema.fields().iter().any(|f| is_float(f.data_type())) {
        return Ok(plan);
    }
    let exprs = schema
        .iter()
        .map(|(qualifier, field)| {
            let column = Expr::Column((qualifier, field).into());
            match is_float(field.data_type()) {
                true => keyed(column).alias_qualified(qualifier.cloned(), field.name()),
                false => column,
            }
        })
        .collect();
    Ok(LogicalPlan::Projection(Projection::try_new(exprs, Arc::new(plan))?))
}

/// Keys the floats one plan node compares, groups, hashes or sorts; its
/// output keeps its names.
fn rewrite_plan(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let plan = match plan {
        LogicalPlan::Distinct(Distinct::All(input))
            if input.schema().fields().iter().any(|f| is_float(f.data_type())) =>
        {
            let input = keyed_columns(Arc::unwrap_or_clone(input))?;
            return Ok(Transformed::yes(LogicalPlan::Distinct(Distinct::All(Arc::new(input)))));
        }
        LogicalPlan::Join(mut join) => {
            let left = join.left.schema().clone();
            let mut changed = false;
            join.on = join
                .on
                .into_iter()
                .map(|(l, r)| match is_float_expr(&l, &left) && !(is_key(&l) && is_key(&r)) {
                    true => {
                        changed = true;
                        (keyed(l), keyed(r))
                    }
                    false => (l, r),
                })
                .collect();
            let mut out = rewrite_exprs(LogicalPlan::Join(join))?;
            out.transformed |= changed;
            return Ok(out);
        }
        other => other,
    };
    rewrite_exprs(plan)
}

fn rewrite_exprs(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let keyed = rewrite_node_exprs(plan)?;
    let transformed = keyed.transformed;
    let mut out = ordered_min_max(keyed.data)?;
    out.transformed |= transformed;
    Ok(out)
}

fn rewrite_node_exprs(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let schema = input_schema(&plan)?;
    let keep_names = matches!(plan, LogicalPlan::Projection(_) | LogicalPlan::Aggregate(_) | LogicalPlan::Window(_));
    let names = NamePreserver::new(&plan);
    let group_keys = matches!(plan, LogicalPlan::Aggregate(_));
    let sort_keys = matches!(plan, LogicalPlan::Sort(_));
    let mut group_count = match &plan {
        LogicalPlan::Aggregate(agg) => agg.group_expr.len(),
        _ => 0,
    };
    let rewritten = plan.map_expressions(|expr| {
        let name = names.save(&expr);
        let mut out = expr.transform_up(|e| rewrite_expr(e, &schema))?;
        // An aggregate's expressions are its groups first, then its aggregates.
        if group_keys && group_count > 0 {
            group_count -= 1;
            if is_float_expr(&out.data, &schema) && !is_key(&out.data) {
                out = Transformed::yes(keyed(out.data));
            }
        }
        if sort_keys && is_float_expr(&out.data, &schema) && !is_key(&out.data) {
            out = Transformed::yes(keyed(out.data));
        }
        Ok(match keep_names {
            true => out.update_data(|e| name.restore(e)),
            false => out,
        })
    })?;
    if rewritten.transformed {
        rewritten.map_data(|plan| plan.recompute_schema())
    } else {
        Ok(rewritten)
    }
}
