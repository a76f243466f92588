//! DuckDB's `bar(x, min, max[, width])`: a bar of block characters as long
//! as `x` is far from `min` toward `max`, in eighths of a character, padded
//! with spaces to `width` (80 by default, at most 1,000); `x` outside the
//! range is clamped to it.

use datafusion::arrow::array::{Array, AsArray, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use std::sync::Arc;

/// The `bar` function.
pub fn bar() -> ScalarUDF {
    ScalarUDF::new_from_impl(Bar { signature: Signature::user_defined(Volatility::Immutable) })
}

/// The blocks of one to seven eighths, then the full one.
const EIGHTHS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];

/// The widest bar drawn.
const WIDEST: f64 = 1000.0;

#[derive(Debug, PartialEq, Eq, Hash)]
struct Bar {
    signature: Signature,
}

impl ScalarUDFImpl for Bar {
    fn name(&self) -> &str {
        "bar"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        if !(3..=4).contains(&args.len()) || args.iter().any(|t| !t.is_numeric() && *t != DataType::Null) {
            return plan_err!("bar() takes numbers: (x, min, max[, width])");
        }
        Ok(vec![DataType::Float64; args.len()])
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let columns: Vec<_> = arrays.iter().map(|a| a.as_primitive::<Float64Type>()).collect();
        let mut out = StringBuilder::new();
        for row in 0..args.number_rows {
            if columns.iter().any(|c| c.is_null(row)) {
                out.append_null();
                continue;
            }
            let (x, min, max) = (columns[0].value(row), columns[1].value(row), columns[2].value(row));
            let width = columns.get(3).map_or(80.0, |w| w.value(row));
            if !(1.0..=WIDEST).contains(&width) {
                return exec_err!("bar(): the width must be between 1 and {WIDEST}, not {width}");
            }
            out.append_value(draw(x, min, max, width as usize));
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

/// The bar of `x` between `min` and `max`, `width` characters wide.
fn draw(x: f64, min: f64, max: f64, width: usize) -> String {
    let length = match max > min {
        true => ((x.clamp(min, max) - min) * width as f64 / (max - min)).clamp(0.0, width as f64),
        false => 0.0,
    };
    let full = length.floor() as usize;
    let eighths = ((length - full as f64) * 8.0).floor() as usize;
    let mut bar = String::with_capacity(3 * width);
    bar.extend(std::iter::repeat_n(EIGHTHS[7], full));
    if eighths > 0 && full < width {
        bar.push(EIGHTHS[eighths - 1]);
    }
    let drawn = full + usize::from(eighths > 0 && full < width);
    bar.extend(std::iter::repeat_n(' ', width - drawn));
    bar
}

#[cfg(test)]
mod tests {
    use super::draw;

    #[test]
    fn eighths_of_a_character() {
        assert_eq!(draw(1.25, 0.0, 10.0, 10), "█▎        ");
        assert_eq!(draw(9.99, 0.0, 10.0, 10), "█████████▉");
        assert_eq!(draw(11.0, 0.0, 10.0, 10), "██████████");
        assert_eq!(draw(-1.0, 0.0, 10.0, 3), "   ");
        assert_eq!(draw(1.0, 5.0, 5.0, 2), "  ");
    }
}
