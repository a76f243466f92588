//! Which numbers stay DOUBLE now that a number with a decimal point is an
//! exact DECIMAL (`0.1 + 0.2 = 0.3`, the session's `parse_float_as_decimal`):
//! as in DuckDB, one written with an exponent (`1e3`, `2.5E-4`) and one with
//! more digits than a DECIMAL holds (38) are DOUBLE. DataFusion read `1e3`
//! as a DECIMAL of scale -3 and `1e400` not at all (a scale below -128).
//! Such a number becomes `CAST('<text>' AS DOUBLE)`, which constant folding
//! makes a DOUBLE literal again; the column it names keeps the text written.

use datafusion::sql::sqlparser::ast::{CastKind, DataType, ExactNumberInfo, Expr, Value, ValueWithSpan};

/// The most digits a DECIMAL holds (DuckDB's and Arrow's 128-bit decimals).
const DECIMAL_DIGITS: usize = 38;

/// Rewrites `expr` if it is a number DuckDB reads as a DOUBLE.
pub fn rewrite(expr: &mut Expr) {
    let Expr::Value(ValueWithSpan { value: Value::Number(text, _), span }) = expr else { return };
    if !is_double(text) {
        return;
    }
    let text = Value::SingleQuotedString(std::mem::take(text)).with_span(*span);
    *expr = Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(Expr::Value(text)),
        data_type: DataType::Double(ExactNumberInfo::None),
        array: false,
        format: None,
    };
}

/// Whether DuckDB reads the number written `text` as a DOUBLE.
fn is_double(text: &str) -> bool {
    text.contains(['e', 'E']) || text.bytes().filter(u8::is_ascii_digit).count() > DECIMAL_DIGITS
}

#[cfg(test)]
mod tests {
    use super::is_double;

    #[test]
    fn exponents_and_over_long_numbers_are_doubles() {
        for text in ["1e3", "2.5E-4", "1e400", &"9".repeat(39), &format!("{}.5", "1".repeat(38))] {
            assert!(is_double(text), "{text}");
        }
        for text in ["0.1", "1.", ".5", "12345678901234567890.5", &"9".repeat(38), "1_000.5"] {
            assert!(!is_double(text), "{text}");
        }
    }
}
