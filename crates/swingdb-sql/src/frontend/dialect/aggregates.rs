//! DuckDB's aggregates that DataFusion lacks, with DuckDB's answers:
//! `skewness`, `kurtosis` (sample, bias-corrected), `kurtosis_pop` and
//! `product`, all over DOUBLE. NULLs are skipped; no value gives NULL, as
//! do too few values for a moment (DuckDB's rules and formulas, from the
//! power sums, so that answers agree to the last digits).

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array};
use datafusion::arrow::datatypes::{DataType, Float64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{create_udaf, Accumulator, AggregateUDF, Volatility};
use std::sync::Arc;

/// The aggregates.
pub fn functions() -> Vec<AggregateUDF> {
    let moments = |name: &str, kind: Moment| {
        let state = vec![DataType::Float64; 5];
        create_udaf(
            name,
            vec![DataType::Float64],
            Arc::new(DataType::Float64),
            Volatility::Immutable,
            Arc::new(move |_| Ok(Box::new(Moments::new(kind)))),
            Arc::new(state),
        )
    };
    vec![
        moments("skewness", Moment::Skewness),
        moments("kurtosis", Moment::Kurtosis),
        moments("kurtosis_pop", Moment::KurtosisPop),
        create_udaf(
            "product",
            vec![DataType::Float64],
            Arc::new(DataType::Float64),
            Volatility::Immutable,
            Arc::new(|_| Ok(Box::new(Product::default()))),
            Arc::new(vec![DataType::Float64, DataType::Float64]),
        ),
    ]
}

/// Which moment a [`Moments`] gives.
#[derive(Debug, Clone, Copy)]
enum Moment {
    Skewness,
    Kurtosis,
    KurtosisPop,
}

/// The count and the sums of the first four powers of the values.
#[derive(Debug)]
struct Moments {
    kind: Moment,
    sums: [f64; 5],
}

impl Moments {
    fn new(kind: Moment) -> Self {
        Self { kind, sums: [0.0; 5] }
    }
}

impl Accumulator for Moments {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        for x in values[0].as_primitive::<Float64Type>().iter().flatten() {
            let mut power = 1.0;
            for sum in self.sums.iter_mut() {
                *sum += power;
                power *= x;
            }
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for (sum, state) in self.sums.iter_mut().zip(states) {
            *sum += state.as_primitive::<Float64Type>().iter().flatten().sum::<f64>();
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(self.sums.iter().map(|&s| ScalarValue::Float64(Some(s))).collect())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let [n, s1, s2, s3, s4] = self.sums;
        let value = match self.kind {
            Moment::Skewness if n > 2.0 => {
                let div = (s2 / n - (s1 / n).powi(2)).powi(3).sqrt();
                let skew = (s3 / n - 3.0 * (s2 / n) * (s1 / n) + 2.0 * (s1 / n).powi(3)) / div;
                Some((n * (n - 1.0)).sqrt() / (n - 2.0) * skew).filter(|v| v.is_finite())
            }
            Moment::Kurtosis | Moment::KurtosisPop if n > 0.0 => {
                let t = 1.0 / n;
                let m4 = t * (s4 - 4.0 * s3 * s1 * t + 6.0 * s2 * s1 * s1 * t * t - 3.0 * s1.powi(4) * t.powi(3));
                let m2 = t * (s2 - s1 * s1 * t);
                match self.kind {
                    _ if m2 <= 0.0 => None,
                    Moment::KurtosisPop => Some(m4 / (m2 * m2) - 3.0),
                    _ if n > 3.0 => {
                        Some((n - 1.0) * ((n + 1.0) * m4 / (m2 * m2) - 3.0 * (n - 1.0)) / ((n - 2.0) * (n - 3.0)))
                    }
                    _ => None,
                }
                .filter(|v| v.is_finite())
            }
            _ => None,
        };
        Ok(ScalarValue::Float64(value))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

/// The product of the values, and whether there was one.
#[derive(Debug, Default)]
struct Product {
    product: Option<f64>,
}

impl Product {
    fn take(&mut self, values: &Float64Array) {
        for x in values.iter().flatten() {
            self.product = Some(self.product.unwrap_or(1.0) * x);
        }
    }
}

impl Accumulator for Product {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.take(values[0].as_primitive::<Float64Type>());
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        // State: the product so far, and 1.0 where there was a value.
        let (products, seen) = (states[0].as_primitive::<Float64Type>(), states[1].as_primitive::<Float64Type>());
        for i in (0..products.len()).filter(|&i| seen.is_valid(i) && seen.value(i) == 1.0) {
            self.product = Some(self.product.unwrap_or(1.0) * products.value(i));
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![
            ScalarValue::Float64(Some(self.product.unwrap_or(1.0))),
            ScalarValue::Float64(Some(if self.product.is_some() { 1.0 } else { 0.0 })),
        ])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Float64(self.product))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}
