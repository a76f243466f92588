//! VALUES lists of ENUM (or other dictionary) values, made as text and
//! turned into the dictionary type above them. DataFusion builds a VALUES
//! column of dictionary type with one dictionary entry per row, so 128 rows
//! of a type with 8-bit keys failed ("Can not create index of type TINYINT
//! from value 128"), whether the list is an `INSERT ... VALUES` into an ENUM
//! column or a query of `'x'::mood` values. The column is planned as text
//! and cast once under a projection that keeps its name: an ENUM by its
//! labels (`swingdb_enum`), another dictionary by Arrow's cast, which
//! dictionary-encodes the whole column.

use crate::frontend::dialect::enum_functions::enum_cast;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DFSchema, Result as DFResult, ScalarValue};
use datafusion::logical_expr::expr::ScalarFunction;
use datafusion::logical_expr::{cast, lit, Expr, LogicalPlan, Projection, Values};
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;

/// `plan` with its dictionary columns made as text, if it is such a VALUES list.
pub fn plain_values(plan: LogicalPlan) -> DFResult<Transformed<LogicalPlan>> {
    let LogicalPlan::Values(values) = &plan else { return Ok(Transformed::no(plan)) };
    let plain_type = |f: &Field| match f.data_type() {
        DataType::Dictionary(_, value) => Some(value.as_ref().clone()),
        _ => None,
    };
    if values.schema.fields().iter().all(|f| plain_type(f).is_none()) {
        return Ok(Transformed::no(plan));
    }
    let LogicalPlan::Values(Values { schema, values }) = plan else { unreachable!("matched above") };
    let fields = schema.iter().map(|(qualifier, field)| {
        let plain = plain_type(field).map(|t| Arc::new(Field::new(field.name(), t, field.is_nullable())));
        (qualifier.cloned(), plain.unwrap_or_else(|| field.clone()))
    });
    let plain_schema = Arc::new(DFSchema::new_with_metadata(fields.collect(), schema.metadata().clone())?);
    let rows = values
        .into_iter()
        .map(|row| {
            row.into_iter()
                .zip(schema.fields())
                .map(|(expr, field)| match (plain_type(field), expr) {
                    (None, expr) => expr,
                    (Some(_), Expr::Literal(ScalarValue::Dictionary(_, inner), metadata)) => {
                        Expr::Literal(*inner, metadata)
                    }
                    (Some(plain), expr) => cast(expr, plain),
                })
                .collect()
        })
        .collect();
    let plain = LogicalPlan::Values(Values { schema: plain_schema.clone(), values: rows });
    let columns = plain_schema
        .iter()
        .zip(schema.fields())
        .map(|((qualifier, plain_field), field)| {
            let column = Expr::Column((qualifier, plain_field).into());
            let typed = match (plain_type(field), EnumType::of_field(field)) {
                (None, _) => return column,
                (Some(_), Some(enum_type)) => {
                    let mut args = vec![column, lit(enum_type.name.clone())];
                    args.extend(enum_type.labels.iter().map(|l| lit(l.clone())));
                    Expr::ScalarFunction(ScalarFunction::new_udf(enum_cast(), args))
                }
                (Some(_), None) => cast(column, field.data_type().clone()),
            };
            typed.alias_qualified(qualifier.cloned(), field.name())
        })
        .collect();
    Ok(Transformed::yes(LogicalPlan::Projection(Projection::try_new(columns, Arc::new(plain))?)))
}
