//! DuckDB's epoch functions: `epoch(t)` is the seconds since 1970-01-01 UTC
//! (a DOUBLE) of a TIMESTAMP, TIMESTAMPTZ or DATE, `epoch_ms(t)`,
//! `epoch_us(t)` and `epoch_ns(t)` the milli-, micro- and nanoseconds (a
//! BIGINT, rounded down as DuckDB rounds: `epoch_ms` of 0.5 ms before 1970 is
//! -1), and `epoch_ms(n)` of an integer the TIMESTAMP `n` milliseconds after
//! 1970-01-01.

use crate::frontend::types::sql_name;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, Int64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Int64Type, TimeUnit, TimestampMicrosecondType, TimestampNanosecondType};
use datafusion::arrow::error::ArrowError;
use datafusion::common::{plan_err, Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use std::sync::Arc;

/// The epoch functions, to register.
pub fn functions() -> Vec<ScalarUDF> {
    [("epoch", 1), ("epoch_ms", 1_000), ("epoch_us", 1_000_000), ("epoch_ns", 1_000_000_000)]
        .into_iter()
        .map(|(name, per_second)| {
            ScalarUDF::new_from_impl(Epoch {
                name,
                per_second,
                signature: Signature::user_defined(Volatility::Immutable),
            })
        })
        .collect()
}

/// One epoch function: `per_second` units of its answer in a second
/// (`epoch` answers seconds as a DOUBLE).
#[derive(Debug, PartialEq, Eq, Hash)]
struct Epoch {
    name: &'static str,
    per_second: i64,
    signature: Signature,
}

impl Epoch {
    /// Whether this function also turns milliseconds into a TIMESTAMP.
    fn takes_milliseconds(&self) -> bool {
        self.name == "epoch_ms"
    }
}

impl ScalarUDFImpl for Epoch {
    fn name(&self) -> &str {
        self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let [arg] = args else { return plan_err!("{}() takes one argument", self.name) };
        match arg {
            DataType::Timestamp(..) | DataType::Date32 | DataType::Date64 => Ok(vec![arg.clone()]),
            t if t.is_integer() && self.takes_milliseconds() => Ok(vec![DataType::Int64]),
            DataType::Null => Ok(vec![DataType::Timestamp(TimeUnit::Microsecond, None)]),
            other => {
                let integer = if self.takes_milliseconds() { ", or an integer of milliseconds" } else { "" };
                plan_err!("{}() takes a TIMESTAMP or a DATE{integer}, not {}", self.name, sql_name(other))
            }
        }
    }
    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        Ok(match &args[0] {
            DataType::Int64 => DataType::Timestamp(TimeUnit::Microsecond, None),
            _ if self.per_second == 1 => DataType::Float64,
            _ => DataType::Int64,
        })
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let scalar = matches!(args.args[0], ColumnarValue::Scalar(_));
        let input = args.args[0].to_array(args.number_rows)?;
        let out: ArrayRef = match input.data_type() {
            DataType::Int64 => {
                let micros = input.as_primitive::<Int64Type>().try_unary::<_, TimestampMicrosecondType, _>(|ms| {
                    ms.checked_mul(1_000).ok_or_else(|| {
                        ArrowError::ComputeError(format!("epoch_ms({ms}) is past the range of TIMESTAMP"))
                    })
                })?;
                Arc::new(micros)
            }
            _ => self.since_epoch(&input)?,
        };
        Ok(match scalar {
            true => ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?),
            false => ColumnarValue::Array(out),
        })
    }
}

impl Epoch {
    /// This function's answer for each TIMESTAMP or DATE of `input`.
    fn since_epoch(&self, input: &ArrayRef) -> Result<ArrayRef> {
        // The instants' ticks (UTC, whatever the zone shown) and ticks per second.
        let (ticks, ticks_per_second): (Int64Array, i64) = match input.data_type() {
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                (input.as_primitive::<TimestampNanosecondType>().reinterpret_cast::<Int64Type>(), 1_000_000_000)
            }
            DataType::Timestamp(_, zone) => {
                let micros = cast(input, &DataType::Timestamp(TimeUnit::Microsecond, zone.clone()))?;
                (micros.as_primitive::<TimestampMicrosecondType>().reinterpret_cast::<Int64Type>(), 1_000_000)
            }
            _ => {
                let micros = cast(input, &DataType::Timestamp(TimeUnit::Microsecond, None))?;
                (micros.as_primitive::<TimestampMicrosecondType>().reinterpret_cast::<Int64Type>(), 1_000_000)
            }
        };
        if self.per_second == 1 {
            let seconds: Float64Array = ticks.unary(|t| t as f64 / ticks_per_second as f64);
            return Ok(Arc::new(seconds));
        }
        let out: Int64Array = match self.per_second >= ticks_per_second {
            true => {
                let factor = self.per_second / ticks_per_second;
                ticks.try_unary(|t| {
                    t.checked_mul(factor).ok_or_else(|| {
                        ArrowError::ComputeError(format!("{}() of this value is past the range of BIGINT", self.name))
                    })
                })?
            }
            false => {
                let divisor = ticks_per_second / self.per_second;
                ticks.unary(|t| t.div_euclid(divisor))
            }
        };
        Ok(Arc::new(out))
    }
}
