//! `string_agg(x, sep ORDER BY ...)` that orders its own values, so that a
//! query may hold several with different orders (`string_agg(a.s, ','
//! ORDER BY a.s), string_agg(b.s, ',' ORDER BY b.s)`), as in DuckDB and
//! PostgreSQL. DataFusion's string_agg asks for its input sorted (a hard
//! requirement), and an aggregate whose functions ask for two different
//! sorts was refused ("Conflicting ordering requirements in aggregate
//! functions"). Its accumulator sorts the values it gathered by itself
//! anyway (it is array_agg's, which DataFusion already treats so): this
//! wrapper says so, and is otherwise DataFusion's string_agg.

use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::Result;
use datafusion::functions_aggregate::string_agg::string_agg_udaf;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Documentation, GroupsAccumulator, ReversedUDAF, Signature,
};
use std::sync::Arc;

/// The `string_agg` aggregate, ordering its own values.
pub fn string_agg() -> AggregateUDF {
    AggregateUDF::new_from_impl(SelfSorting { inner: string_agg_udaf() })
}

/// DataFusion's string_agg with a soft ordering requirement.
#[derive(Debug, PartialEq, Eq, Hash)]
struct SelfSorting {
    inner: Arc<AggregateUDF>,
}

impl AggregateUDFImpl for SelfSorting {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }

    fn accumulator(&self, acc_args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.inner.accumulator(acc_args)
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.inner.state_fields(args)
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        self.inner.groups_accumulator_supported(args)
    }

    fn create_groups_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn GroupsAccumulator>> {
        self.inner.create_groups_accumulator(args)
    }

    /// Sorted input saves the accumulator nothing it relies on: it sorts
    /// what it gathered whether or not its input came sorted.
    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::SoftRequirement
    }

    /// The same function: it never takes its input's order for granted.
    fn with_beneficial_ordering(
        self: Arc<Self>,
        _beneficial_ordering: bool,
    ) -> Result<Option<Arc<dyn AggregateUDFImpl>>> {
        Ok(Some(self))
    }

    fn reverse_expr(&self) -> ReversedUDAF {
        ReversedUDAF::Reversed(Arc::new(string_agg()))
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }
}
