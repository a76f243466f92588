//! Filters planned without DataFusion's interval analysis, when that analysis
//! fails on them. DataFusion estimates a filter's selectivity by propagating
//! the input's min/max through the predicate as intervals, and it does so when
//! a `FilterExec` is created: an error there fails the whole query. The
//! analysis can fail on sound input: `a <= CAST(b AS INTEGER)` over a float
//! `b` in [75.5, 962.43] widened `b`'s interval to [75, ...] on the way back
//! through the cast, estimated 1.0018 of the rows kept, and its assertion
//! raised "Selectivity is out of limit" for a valid query on ten rows.
//!
//! A plan whose physical planning fails with an internal error (the kind that
//! assertion raises) is planned again with every filter's predicate wrapped in
//! [`no_estimate`], an identity the analysis does not look into: those
//! filters get the default selectivity, like any filter it cannot analyse,
//! and the query answers. Scans keep the filters pushed into them (pruning
//! is unaffected); only estimates of that query's filters are coarser.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::tree_node::Transformed;
use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, Filter, LogicalPlan, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use std::sync::Arc;

/// Whether planning failed in a way a broken estimate of a filter can cause:
/// DataFusion's assertion on it raises an internal error (see the module
/// documentation). Told by the error's kind, not its text; a plan that fails
/// again without estimates keeps its first error.
pub fn may_be_estimate_failure(err: &DataFusionError) -> bool {
    matches!(err.find_root(), DataFusionError::Internal(_))
}

/// `plan` with the predicate of every filter wrapped in [`no_estimate`].
pub fn without_estimates(plan: LogicalPlan) -> Result<LogicalPlan> {
    let udf = Arc::new(ScalarUDF::new_from_impl(NoEstimate::default()));
    plan.transform_up_with_subqueries(|node| match node {
        LogicalPlan::Filter(filter) => {
            let predicate = udf.call(vec![filter.predicate]);
            Ok(Transformed::yes(LogicalPlan::Filter(Filter::try_new(predicate, filter.input)?)))
        }
        other => Ok(Transformed::no(other)),
    })
    .map(|t| t.data)
}

/// `no_estimate(condition)`: the condition itself, opaque to interval analysis.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct NoEstimate {
    signature: Signature,
}

impl Default for NoEstimate {
    fn default() -> Self {
        Self { signature: Signature::exact(vec![DataType::Boolean], Volatility::Immutable) }
    }
}

/// The function's name, as EXPLAIN shows it.
pub const NO_ESTIMATE: &str = "no_estimate";

impl ScalarUDFImpl for NoEstimate {
    fn name(&self) -> &str {
        NO_ESTIMATE
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        args.args.into_iter().next().ok_or_else(|| DataFusionError::Plan(format!("{NO_ESTIMATE} takes one condition")))
    }
}
