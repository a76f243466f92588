//! DuckDB's `mode(x)`: the most frequent non-NULL value (NULL when there is
//! none), of any type. Ties go to the value seen first, as DuckDB mostly
//! breaks them (not always: its mode of `'3','1','1','3'` as text is `'1'`,
//! of the same numbers `3`): each accumulator keeps its values in the
//! order it first saw them, and merging
//! keeps that order (one partition's values before the next one's), so the
//! answer over a single scan is DuckDB's; over a table scanned in parallel,
//! "first" is first within the order the parts are merged in.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Int64Type};
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility};
use std::collections::HashMap;
use std::sync::Arc;

/// The `mode` aggregate.
pub fn mode() -> AggregateUDF {
    AggregateUDF::new_from_impl(Mode { signature: Signature::any(1, Volatility::Immutable) })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Mode {
    signature: Signature,
}

impl AggregateUDFImpl for Mode {
    fn name(&self) -> &str {
        "mode"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        Ok(args[0].clone())
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(Counts::new(args.return_field.data_type().clone())))
    }

    /// The distinct values in first-seen order, and their counts.
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        let values = Field::new_list_field(args.return_field.data_type().clone(), true);
        Ok(vec![
            Arc::new(Field::new("values", DataType::List(Arc::new(values)), true)),
            Arc::new(Field::new(
                "counts",
                DataType::List(Arc::new(Field::new_list_field(DataType::Int64, true))),
                true,
            )),
        ])
    }
}

/// Each distinct value's count, in the order the values were first seen.
#[derive(Debug)]
struct Counts {
    value_type: DataType,
    seen: Vec<(ScalarValue, i64)>,
    index: HashMap<ScalarValue, usize>,
}

impl Counts {
    fn new(value_type: DataType) -> Self {
        Self { value_type, seen: Vec::new(), index: HashMap::new() }
    }

    fn add(&mut self, value: ScalarValue, count: i64) {
        match self.index.get(&value) {
            Some(&at) => self.seen[at].1 += count,
            None => {
                self.index.insert(value.clone(), self.seen.len());
                self.seen.push((value, count));
            }
        }
    }
}

impl Accumulator for Counts {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let column = &values[0];
        for row in 0..column.len() {
            if column.is_valid(row) {
                self.add(ScalarValue::try_from_array(column, row)?, 1);
            }
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (values, counts) = (states[0].as_list::<i32>(), states[1].as_list::<i32>());
        for row in 0..values.len() {
            if values.is_null(row) {
                continue;
            }
            let (these, numbers) = (values.value(row), counts.value(row));
            let numbers = numbers.as_primitive::<Int64Type>();
            for i in 0..these.len() {
                self.add(ScalarValue::try_from_array(&these, i)?, numbers.value(i));
            }
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let values: Vec<ScalarValue> = self.seen.iter().map(|(v, _)| v.clone()).collect();
        let values = match values.is_empty() {
            true => datafusion::arrow::array::new_empty_array(&self.value_type),
            false => ScalarValue::iter_to_array(values)?,
        };
        let counts: ArrayRef = Arc::new(self.seen.iter().map(|(_, c)| *c).collect::<Int64Array>());
        let list = |array: ArrayRef| SingleRowListArrayBuilder::new(array).build_list_scalar();
        Ok(vec![list(values), list(counts)])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let mut best: Option<&(ScalarValue, i64)> = None;
        for entry in &self.seen {
            if best.is_none_or(|b| entry.1 > b.1) {
                best = Some(entry);
            }
        }
        match best {
            Some((value, _)) => Ok(value.clone()),
            None => ScalarValue::try_from(&self.value_type),
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self.seen.iter().map(|(v, _)| v.size() + 8).sum::<usize>()
            + self.index.capacity() * (std::mem::size_of::<ScalarValue>() + 8)
    }
}
