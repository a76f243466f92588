//! DuckDB's text functions that count user-perceived characters (extended
//! grapheme clusters: `'🤦🏼‍♂️'` is one, though five code points):
//! `length_grapheme(s)`, `left_grapheme(s, n)`, `right_grapheme(s, n)` (a
//! negative `n` leaves that many out from the other end) and
//! `substring_grapheme(s, start[, length])` (1-based, as `substring`).

use datafusion::arrow::array::{Array, AsArray, Int64Array, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Int64Type};
use datafusion::common::{plan_err, Result};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use std::sync::Arc;
use unicode_segmentation::UnicodeSegmentation;

/// What a function answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Length,
    Left,
    Right,
    Substring,
}

/// The functions.
pub fn functions() -> Vec<ScalarUDF> {
    [
        ("length_grapheme", Kind::Length),
        ("left_grapheme", Kind::Left),
        ("right_grapheme", Kind::Right),
        ("substring_grapheme", Kind::Substring),
    ]
    .into_iter()
    .map(|(name, kind)| {
        ScalarUDF::new_from_impl(Grapheme { name, kind, signature: Signature::user_defined(Volatility::Immutable) })
    })
    .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Grapheme {
    name: &'static str,
    kind: Kind,
    signature: Signature,
}

impl ScalarUDFImpl for Grapheme {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let counts = match self.kind {
            Kind::Length => 1..=1,
            Kind::Left | Kind::Right => 2..=2,
            Kind::Substring => 2..=3,
        };
        if !counts.contains(&args.len()) || args[1..].iter().any(|t| !t.is_integer() && *t != DataType::Null) {
            let wanted = match self.kind {
                Kind::Length => "(text)",
                Kind::Left | Kind::Right => "(text, count)",
                Kind::Substring => "(text, start[, length])",
            };
            return plan_err!("{}() takes {wanted}", self.name);
        }
        Ok(std::iter::once(DataType::Utf8).chain(args[1..].iter().map(|_| DataType::Int64)).collect())
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(if self.kind == Kind::Length { DataType::Int64 } else { DataType::Utf8 })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let text = arrays[0].as_string::<i32>();
        if self.kind == Kind::Length {
            let lengths: Int64Array = text.iter().map(|s| s.map(|s| s.graphemes(true).count() as i64)).collect();
            return Ok(ColumnarValue::Array(Arc::new(lengths)));
        }
        let numbers: Vec<_> = arrays[1..].iter().map(|a| a.as_primitive::<Int64Type>()).collect();
        let mut out = StringBuilder::new();
        for row in 0..text.len() {
            if text.is_null(row) || numbers.iter().any(|n| n.is_null(row)) {
                out.append_null();
                continue;
            }
            let clusters: Vec<&str> = text.value(row).graphemes(true).collect();
            let n = clusters.len() as i64;
            let (from, to) = match (self.kind, numbers[0].value(row)) {
                (Kind::Left, k) if k >= 0 => (0, k.min(n)),
                (Kind::Left, k) => (0, (n + k).max(0)),
                (Kind::Right, k) if k >= 0 => ((n - k).max(0), n),
                (Kind::Right, k) => ((-k).min(n), n),
                (_, start) => {
                    let length = numbers.get(1).map_or(i64::MAX, |l| l.value(row));
                    if length < 0 {
                        return plan_err!("substring_grapheme: the length must not be negative, not {length}");
                    }
                    // As `substring`: counted from 1; from the end when negative.
                    let first = if start < 0 { n + start } else { start - 1 };
                    let last = first.saturating_add(length);
                    (first.clamp(0, n), last.clamp(0, n))
                }
            };
            out.append_value(clusters[from as usize..to.max(from) as usize].concat());
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::StringArray;
    use datafusion::arrow::datatypes::Field;
    use datafusion::common::config::ConfigOptions;
    use datafusion::logical_expr::ScalarUDF;

    fn call(function: &ScalarUDF, text: &str, numbers: &[i64]) -> String {
        let mut args = vec![ColumnarValue::Array(Arc::new(StringArray::from(vec![text])))];
        args.extend(numbers.iter().map(|n| ColumnarValue::Array(Arc::new(Int64Array::from(vec![*n])))));
        let arg_fields = args.iter().map(|a| Arc::new(Field::new("a", a.data_type(), true))).collect();
        let out = function
            .invoke_with_args(ScalarFunctionArgs {
                args,
                arg_fields,
                number_rows: 1,
                return_field: Arc::new(Field::new("out", DataType::Utf8, true)),
                config_options: Arc::new(ConfigOptions::default()),
            })
            .unwrap();
        let ColumnarValue::Array(out) = out else { panic!("an array") };
        out.as_string::<i32>().value(0).to_string()
    }

    #[test]
    fn counts_clusters_and_from_either_end() {
        let by_name = |name: &str| functions().into_iter().find(|f| f.name() == name).unwrap();
        let facepalm = "🤦🏼\u{200d}♂\u{fe0f}";
        assert_eq!(call(&by_name("left_grapheme"), &format!("{facepalm}ab"), &[1]), facepalm);
        assert_eq!(call(&by_name("left_grapheme"), "abcd", &[-1]), "abc");
        assert_eq!(call(&by_name("right_grapheme"), "abcd", &[-1]), "bcd");
        assert_eq!(call(&by_name("substring_grapheme"), "abcd", &[0, 2]), "a");
        assert_eq!(call(&by_name("substring_grapheme"), "abcd", &[-2, 2]), "cd");
        assert_eq!(call(&by_name("substring_grapheme"), &format!("{facepalm}abc"), &[2, 2]), "ab");
    }
}
