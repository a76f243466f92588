//! Ranks are BIGINTs, as in DuckDB and PostgreSQL: `row_number()`,
//! `rank()`, `dense_rank()` and `ntile(n)` give signed 64-bit integers.
//!
//! DataFusion's give unsigned ones (UBIGINT), and an unsigned integer mixed
//! with a signed one is no longer an integer there: `-rank() OVER (...)` was
//! refused ("Unary operator '-' only supports signed numeric"), `rank() - 1`
//! and `rank() // 7` became DECIMAL(20, 0) (pandas got Python objects, the
//! division decimals), and a rank came to numpy as `uint64` where DuckDB
//! gives `int64`. Each of DataFusion's four functions is registered again
//! under its own name, wrapped: the same evaluation, ordering and limits,
//! with its results cast to BIGINT (lossless: a rank counts rows).

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::compute::cast;
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result as DFResult, ScalarValue};
use datafusion::logical_expr::function::{ExpressionArgs, PartitionEvaluatorArgs, WindowUDFFieldArgs};
use datafusion::logical_expr::window_state::WindowAggState;
use datafusion::logical_expr::{
    Documentation, LimitEffect, PartitionEvaluator, ReversedUDWF, Signature, WindowUDF, WindowUDFImpl,
};
use datafusion::physical_expr::PhysicalExpr;
use std::ops::Range;
use std::sync::Arc;

/// The ranking functions whose results are made BIGINT.
pub const RANKS: [&str; 4] = ["row_number", "rank", "dense_rank", "ntile"];

/// `inner` (one of DataFusion's [`RANKS`]) giving BIGINTs.
pub fn bigint_rank(inner: Arc<WindowUDF>) -> WindowUDF {
    WindowUDF::new_from_impl(BigintRank { inner })
}

/// A ranking window function whose unsigned results are cast to BIGINT.
#[derive(Debug, PartialEq, Eq, Hash)]
struct BigintRank {
    inner: Arc<WindowUDF>,
}

impl WindowUDFImpl for BigintRank {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn expressions(&self, expr_args: ExpressionArgs) -> Vec<Arc<dyn PhysicalExpr>> {
        self.inner.expressions(expr_args)
    }

    fn partition_evaluator(&self, args: PartitionEvaluatorArgs) -> DFResult<Box<dyn PartitionEvaluator>> {
        Ok(Box::new(BigintEvaluator(self.inner.partition_evaluator_factory(args)?)))
    }

    fn field(&self, field_args: WindowUDFFieldArgs) -> DFResult<FieldRef> {
        let field = self.inner.field(field_args)?;
        Ok(match field.data_type().is_unsigned_integer() {
            true => Arc::new(field.as_ref().clone().with_data_type(DataType::Int64)),
            false => field,
        })
    }

    fn sort_options(&self) -> Option<SortOptions> {
        self.inner.sort_options()
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }

    fn reverse_expr(&self) -> ReversedUDWF {
        match self.inner.reverse_expr() {
            ReversedUDWF::Reversed(reversed) => ReversedUDWF::Reversed(Arc::new(bigint_rank(reversed))),
            other => other,
        }
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }

    fn limit_effect(&self, args: &[Arc<dyn PhysicalExpr>]) -> LimitEffect {
        self.inner.inner().limit_effect(args)
    }
}

/// The wrapped function's evaluator, its results cast to BIGINT.
#[derive(Debug)]
struct BigintEvaluator(Box<dyn PartitionEvaluator>);

fn bigint_array(array: ArrayRef) -> DFResult<ArrayRef> {
    match array.data_type().is_unsigned_integer() {
        true => Ok(cast(&array, &DataType::Int64)?),
        false => Ok(array),
    }
}

fn bigint_scalar(value: ScalarValue) -> DFResult<ScalarValue> {
    match value.data_type().is_unsigned_integer() {
        true => value.cast_to(&DataType::Int64),
        false => Ok(value),
    }
}

impl PartitionEvaluator for BigintEvaluator {
    fn memoize(&mut self, state: &mut WindowAggState) -> DFResult<()> {
        self.0.memoize(state)
    }

    fn get_range(&self, idx: usize, n_rows: usize) -> DFResult<Range<usize>> {
        self.0.get_range(idx, n_rows)
    }

    fn is_causal(&self) -> bool {
        self.0.is_causal()
    }

    fn evaluate_all(&mut self, values: &[ArrayRef], num_rows: usize) -> DFResult<ArrayRef> {
        bigint_array(self.0.evaluate_all(values, num_rows)?)
    }

    fn evaluate(&mut self, values: &[ArrayRef], range: &Range<usize>) -> DFResult<ScalarValue> {
        bigint_scalar(self.0.evaluate(values, range)?)
    }

    fn evaluate_all_with_rank(&self, num_rows: usize, ranks_in_partition: &[Range<usize>]) -> DFResult<ArrayRef> {
        bigint_array(self.0.evaluate_all_with_rank(num_rows, ranks_in_partition)?)
    }

    fn supports_bounded_execution(&self) -> bool {
        self.0.supports_bounded_execution()
    }

    fn uses_window_frame(&self) -> bool {
        self.0.uses_window_frame()
    }

    fn include_rank(&self) -> bool {
        self.0.include_rank()
    }
}
