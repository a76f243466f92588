//! ENUM values ordered as declared (see `swingdb_storage::encoding::enums`): Arrow
//! sorts and compares a dictionary by its values' text, DuckDB an ENUM by
//! its labels' positions. An analyzer rule, run after type coercion, puts
//! `enum_code` (the position) in place of an ENUM expression where order
//! counts: ORDER BY keys (of queries, windows and ordered aggregates),
//! `<`, `<=`, `>`, `>=` and BETWEEN between values of one ENUM type, and
//! `min` / `max`, whose positions are mapped back to labels by a projection
//! above the aggregate (same names). As in DuckDB, an ENUM compared with
//! text is compared as text, and `=` is the same either way. VALUES lists
//! of ENUM values are made as text first (see `crate::optimizer::enum_values`).

use crate::frontend::dialect::enum_functions::{enum_code, per_array};
use crate::optimizer::node_expressions::{input_schema, rewrite_expressions};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult};
use datafusion::common::{DFSchema, Result as DFResult};
use datafusion::logical_expr::expr::{ScalarFunction, Sort};
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::{
    Aggregate, Between, BinaryExpr, ColumnarValue, Expr, ExprSchemable, LogicalPlan, Operator, Projection,
    ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::optimizer::AnalyzerRule;
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;

/// The analyzer rule that orders ENUM values as declared (see the module docs).
#[derive(Debug, Default)]
pub struct EnumOrder;

impl AnalyzerRule for EnumOrder {
    fn name(&self) -> &str {
        "enum_order"
    }

    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> DFResult<LogicalPlan> {
        plan.transform_up_with_subqueries(rewrite_plan).data()
    }
}

/// The ENUM type of `expr`, if it has one.
fn enum_of(expr: &Expr, schema: &DFSchema) -> Option<EnumType> {
    if !matches!(expr.get_type(schema), Ok(DataType::Dictionary(..))) {
        return None;
    }
    EnumType::of_field(&expr.to_field(schema).ok()?.1)
}

/// `enum_code(expr)`.
fn coded(expr: Expr) -> Expr {
    Expr::ScalarFunction(ScalarFunction::new_udf(enum_code(), vec![expr]))
}

/// `sort` keyed by the position of its value, if that is an ENUM.
fn coded_sort(sort: Sort, schema: &DFSchema) -> Sort {
    match enum_of(&sort.expr, schema) {
        Some(_) => Sort { expr: coded(sort.expr), ..sort },
        None => sort,
    }
}

fn coded_sorts(sorts: Vec<Sort>, schema: &DFSchema) -> Vec<Sort> {
    sorts.into_iter().map(|s| coded_sort(s, schema)).collect()
}

/// Whether `a` and `b` are of one ENUM type.
fn same_enum(a: &Expr, b: &Expr, schema: &DFSchema) -> bool {
    enum_of(a, schema).is_some_and(|t| enum_of(b, schema).is_some_and(|u| t.labels == u.labels))
}

/// One expression with its ENUM orderings on positions.
fn rewrite_expr(expr: Expr, schema: &DFSchema) -> DFResult<Transformed<Expr>> {
    Ok(match expr {
        Expr::BinaryExpr(BinaryExpr { left, op, right })
            if matches!(op, Operator::Lt | Operator::LtEq | Operator::Gt | Operator::GtEq)
                && same_enum(&left, &right, schema) =>
        {
            Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(Box::new(coded(*left)), op, Box::new(coded(*right)))))
        }
        Expr::Between(Between { expr, negated, low, high })
            if same_enum(&expr, &low, schema) && same_enum(&expr, &high, schema) =>
        {
            let (expr, low, high) = (coded(*expr), coded(*low), coded(*high));
            Transformed::yes(Expr::Between(Between::new(Box::new(expr), negated, Box::new(low), Box::new(high))))
        }
        Expr::WindowFunction(mut window)
            if window.params.order_by.iter().any(|s| enum_of(&s.expr, schema).is_some()) =>
        {
            window.params.order_by = coded_sorts(std::mem::take(&mut window.params.order_by), schema);
            Transformed::yes(Expr::WindowFunction(window))
        }
        Expr::AggregateFunction(mut agg) if agg.params.order_by.iter().any(|s| enum_of(&s.expr, schema).is_some()) => {
            agg.params.order_by = coded_sorts(std::mem::take(&mut agg.params.order_by), schema);
            Transformed::yes(Expr::AggregateFunction(agg))
        }
        other => Transformed::no(other),
    })
}

fn rewrite_plan(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let plan = match plan {
        LogicalPlan::Sort(mut sort) => {
            let schema = sort.input.schema().clone();
            if sort.expr.iter().any(|s| enum_of(&s.expr, &schema).is_some()) {
                sort.expr = coded_sorts(sort.expr, &schema);
                return Ok(Transformed::yes(LogicalPlan::Sort(sort)));
            }
            LogicalPlan::Sort(sort)
        }
        other => other,
    };
    let plain = crate::optimizer::enum_values::plain_values(plan)?;
    let rewritten = rewrite_expressions(plain.data, rewrite_expr)?;
    let transformed = plain.transformed || rewritten.transformed;
    let mut out = positional_min_max(rewritten.data)?;
    out.transformed |= transformed;
    Ok(out)
}

/// `expr` without the casts to text that type coercion put around an ENUM
/// (`min` and `max` take strings, not dictionaries).
fn uncast(expr: &Expr) -> &Expr {
    match expr {
        Expr::Cast(cast)
            if matches!(cast.field.data_type(), DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8) =>
        {
            uncast(&cast.expr)
        }
        other => other,
    }
}

/// The ENUM type whose `min` / `max` `expr` (an aggregate, maybe aliased) is.
fn min_max_of_enum(expr: &Expr, schema: &DFSchema) -> Option<EnumType> {
    match expr {
        Expr::Alias(alias) => min_max_of_enum(&alias.expr, schema),
        Expr::AggregateFunction(agg) if matches!(agg.func.name(), "min" | "max") && agg.params.args.len() == 1 => {
            enum_of(uncast(&agg.params.args[0]), schema)
        }
        _ => None,
    }
}

/// `min(e)` / `max(e)` as `min(enum_code(e))`.
fn coded_arg(expr: Expr) -> Expr {
    match expr {
        Expr::Alias(mut alias) => {
            alias.expr = Box::new(coded_arg(*alias.expr));
            Expr::Alias(alias)
        }
        Expr::AggregateFunction(mut agg) => {
            agg.params.args = agg.params.args.iter().map(|a| coded(uncast(a).clone())).collect();
            Expr::AggregateFunction(agg)
        }
        other => other,
    }
}

/// An aggregate whose `min` / `max` of ENUM values run over their
/// positions, under a projection that maps them back to labels.
fn positional_min_max(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let LogicalPlan::Aggregate(agg) = &plan else { return Ok(Transformed::no(plan)) };
    if agg.group_expr.iter().any(|e| matches!(e, Expr::GroupingSet(_))) {
        return Ok(Transformed::no(plan));
    }
    let schema = input_schema(&plan)?;
    let enums: Vec<Option<EnumType>> = agg.aggr_expr.iter().map(|e| min_max_of_enum(e, &schema)).collect();
    if enums.iter().all(Option::is_none) {
        return Ok(Transformed::no(plan));
    }
    let first = agg.group_expr.len();
    let names = NamePreserver::new(&plan);
    let output = plan.schema().clone();
    let LogicalPlan::Aggregate(agg) = plan else { unreachable!("matched above") };
    let aggr_expr = agg
        .aggr_expr
        .into_iter()
        .zip(&enums)
        .map(|(e, enum_type)| match enum_type {
            Some(_) => names.save(&e).restore(coded_arg(e)),
            None => e,
        })
        .collect();
    let rewritten = Aggregate::try_new(agg.input, agg.group_expr, aggr_expr)?;
    let columns = output
        .iter()
        .enumerate()
        .map(|(i, (qualifier, field))| {
            let column = Expr::Column((qualifier, field).into());
            match i.checked_sub(first).and_then(|j| enums[j].clone()) {
                Some(enum_type) => {
                    let label = Arc::new(ScalarUDF::new_from_impl(EnumLabel::new(enum_type)));
                    Expr::ScalarFunction(ScalarFunction::new_udf(label, vec![column]))
                        .alias_qualified(qualifier.cloned(), field.name())
                }
                None => column,
            }
        })
        .collect();
    let projected = Projection::try_new(columns, Arc::new(LogicalPlan::Aggregate(rewritten)))?;
    Ok(Transformed::yes(LogicalPlan::Projection(projected)))
}

/// `enum_label(code)`: the label at each position, a value of the ENUM type
/// it carries (the way back from `enum_code`).
#[derive(Debug, PartialEq, Eq, Hash)]
struct EnumLabel {
    enum_type: EnumType,
    signature: Signature,
}

impl EnumLabel {
    fn new(enum_type: EnumType) -> Self {
        Self { enum_type, signature: Signature::any(1, Volatility::Immutable) }
    }
}

impl ScalarUDFImpl for EnumLabel {
    fn name(&self) -> &str {
        "enum_label"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(self.enum_type.data_type())
    }

    fn return_field_from_args(&self, _args: ReturnFieldArgs) -> DFResult<FieldRef> {
        Ok(Arc::new(self.enum_type.field(self.name(), true)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        per_array(&args.args[0], |codes| Ok(self.enum_type.from_codes(codes)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, ArrayRef, StringArray};
    use datafusion::arrow::compute::cast;

    /// The positions of an ENUM column's values (what `enum_code` gives).
    fn positions_of(enum_type: &EnumType, array: &ArrayRef) -> Vec<Option<i64>> {
        use crate::frontend::dialect::enum_functions::codes;
        let ColumnarValue::Array(codes) = codes(enum_type, &ColumnarValue::Array(array.clone())).unwrap() else {
            unreachable!()
        };
        let codes = cast(&codes, &DataType::Int64).unwrap();
        let codes = codes.as_any().downcast_ref::<datafusion::arrow::array::Int64Array>().unwrap();
        (0..codes.len()).map(|i| codes.is_valid(i).then(|| codes.value(i))).collect()
    }

    #[test]
    fn positions_and_labels_round_trip() {
        let mood = EnumType::new("mood", vec!["sad".into(), "ok".into(), "happy".into()]).unwrap();
        let text: ArrayRef = Arc::new(StringArray::from(vec![Some("happy"), None, Some("sad")]));
        let value = mood.conform(&text).unwrap();
        assert_eq!(positions_of(&mood, &value), [Some(2), None, Some(0)]);
        let label = EnumLabel::new(mood.clone());
        let codes: ArrayRef = Arc::new(datafusion::arrow::array::Int8Array::from(vec![Some(1), None]));
        let field = Arc::new(datafusion::arrow::datatypes::Field::new("c", DataType::Int8, true));
        let args = ScalarFunctionArgs {
            args: vec![ColumnarValue::Array(codes)],
            arg_fields: vec![field],
            number_rows: 2,
            return_field: Arc::new(mood.field("l", true)),
            config_options: Arc::new(ConfigOptions::default()),
        };
        let ColumnarValue::Array(labels) = label.invoke_with_args(args).unwrap() else { unreachable!() };
        let labels = cast(&labels, &DataType::Utf8).unwrap();
        assert_eq!(labels.as_ref(), &StringArray::from(vec![Some("ok"), None]) as &dyn Array);
    }
}
