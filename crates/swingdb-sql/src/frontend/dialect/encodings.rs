//! DuckDB's functions that spell values in other digits or digest them:
//! `hex` / `bin` / `to_binary` of an integer (two's complement of a BIGINT
//! for a negative one), of text or of a BLOB, `unbin` / `from_binary` (binary
//! digits to a BLOB), `to_base(n, radix[, min_length])` (at most 64 long, as
//! DuckDB), `sha1`, `md5_number`
//! (the MD5 digest read as a little-endian 128-bit number; a DECIMAL(39,0)
//! here, DuckDB's UHUGEINT) and `hash(...)`. NULL in gives NULL out, except
//! in `hash`, which hashes NULL too.
//!
//! `hash` is XXH3 (64 bits) of the arguments' Arrow row encoding: the same
//! values of the same types give the same hash on every machine and run of
//! one swingdb version, but not DuckDB's numbers.

use crate::frontend::types::sql_name;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryBuilder, Decimal256Builder, StringBuilder, UInt64Array,
};
use datafusion::arrow::datatypes::{i256, DataType, Int64Type, UInt64Type};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use md5::Md5;
use sha1::{Digest, Sha1};
use std::fmt::Write;
use std::sync::Arc;

/// What a function does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Hex,
    Bin,
    Unbin,
    ToBase,
    Sha1,
    Md5Number,
    Hash,
}

/// The functions, under each of their names.
pub fn functions() -> Vec<ScalarUDF> {
    [
        ("hex", Kind::Hex),
        ("to_hex", Kind::Hex),
        ("bin", Kind::Bin),
        ("to_binary", Kind::Bin),
        ("unbin", Kind::Unbin),
        ("from_binary", Kind::Unbin),
        ("to_base", Kind::ToBase),
        ("sha1", Kind::Sha1),
        ("md5_number", Kind::Md5Number),
        ("hash", Kind::Hash),
    ]
    .into_iter()
    .map(|(name, kind)| {
        ScalarUDF::new_from_impl(Encoding { name, kind, signature: Signature::user_defined(Volatility::Immutable) })
    })
    .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Encoding {
    name: &'static str,
    kind: Kind,
    signature: Signature,
}

impl ScalarUDFImpl for Encoding {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name;
        let bytes = |t: &DataType| match t {
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Some(DataType::Binary),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => Some(DataType::Utf8),
            _ => None,
        };
        let integer = |t: &DataType| match t {
            DataType::UInt64 => Some(DataType::UInt64),
            t if t.is_integer() => Some(DataType::Int64),
            _ => None,
        };
        let wrong = |what: &str| plan_err!("{name}() takes {what}, not ({})", names(args));
        match (self.kind, args) {
            (Kind::Hex | Kind::Bin, [t]) => match integer(t).or_else(|| bytes(t)) {
                Some(t) => Ok(vec![t]),
                None => wrong("an integer, text or a BLOB"),
            },
            (Kind::Unbin, [t]) if bytes(t) == Some(DataType::Utf8) => Ok(vec![DataType::Utf8]),
            (Kind::Unbin, _) => wrong("text of binary digits"),
            (Kind::Sha1 | Kind::Md5Number, [t]) => match bytes(t) {
                Some(t) => Ok(vec![t]),
                None => wrong("text or a BLOB"),
            },
            (Kind::ToBase, [n, radix, rest @ ..])
                if n.is_integer() && radix.is_integer() && rest.len() <= 1 && rest.iter().all(|t| t.is_integer()) =>
            {
                Ok(vec![DataType::Int64; args.len()])
            }
            (Kind::ToBase, _) => wrong("(number, radix[, min_length]) integers"),
            (Kind::Hash, []) => wrong("one argument or more"),
            (Kind::Hash, _) => Ok(args.to_vec()),
            _ => wrong("one argument"),
        }
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Unbin => DataType::Binary,
            Kind::Md5Number => DataType::Decimal256(39, 0),
            Kind::Hash => DataType::UInt64,
            _ => DataType::Utf8,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let out: ArrayRef = match self.kind {
            Kind::Hash => hash(&arrays)?,
            Kind::ToBase => to_base(&arrays)?,
            Kind::Unbin => unbin(&arrays[0])?,
            Kind::Md5Number => {
                let mut out = Decimal256Builder::new();
                for value in byte_values(&arrays[0])? {
                    out.append_option(value.map(|v| {
                        let digest: [u8; 16] = Md5::digest(v).into();
                        i256::from_parts(u128::from_le_bytes(digest), 0)
                    }));
                }
                Arc::new(out.finish().with_precision_and_scale(39, 0)?)
            }
            Kind::Sha1 => Arc::new(
                byte_values(&arrays[0])?
                    .into_iter()
                    .map(|v| v.map(|v| hex_digits(&Sha1::digest(v), false)))
                    .collect::<datafusion::arrow::array::StringArray>(),
            ),
            Kind::Hex | Kind::Bin => self.digits(&arrays[0])?,
        };
        Ok(ColumnarValue::Array(out))
    }
}

impl Encoding {
    /// `hex` or `bin` of each value of `input`.
    fn digits(&self, input: &ArrayRef) -> Result<ArrayRef> {
        let mut out = StringBuilder::new();
        let bits = self.kind == Kind::Bin;
        let number = |n: u64| if bits { format!("{n:b}") } else { format!("{n:X}") };
        match input.data_type() {
            DataType::Int64 => {
                for n in input.as_primitive::<Int64Type>() {
                    out.append_option(n.map(|n| number(n as u64)));
                }
            }
            DataType::UInt64 => {
                for n in input.as_primitive::<UInt64Type>() {
                    out.append_option(n.map(number));
                }
            }
            _ => {
                for value in byte_values(input)? {
                    out.append_option(value.map(|v| match bits {
                        true => v.iter().fold(String::new(), |mut s, b| {
                            let _ = write!(s, "{b:08b}");
                            s
                        }),
                        false => hex_digits(v, true),
                    }));
                }
            }
        }
        Ok(Arc::new(out.finish()))
    }
}

/// The bytes of each value of a text or BLOB column.
fn byte_values(input: &ArrayRef) -> Result<Vec<Option<&[u8]>>> {
    Ok(match input.data_type() {
        DataType::Utf8 => input.as_string::<i32>().iter().map(|v| v.map(str::as_bytes)).collect(),
        DataType::Binary => input.as_binary::<i32>().iter().collect(),
        other => return exec_err!("expected text or a BLOB, not {}", sql_name(other)),
    })
}

/// `bytes` as two hexadecimal digits each.
fn hex_digits(bytes: &[u8], upper: bool) -> String {
    bytes.iter().fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
        let _ = if upper { write!(s, "{b:02X}") } else { write!(s, "{b:02x}") };
        s
    })
}

/// `unbin(text)`: binary digits, eight to a byte counted from the right.
fn unbin(input: &ArrayRef) -> Result<ArrayRef> {
    let mut out = BinaryBuilder::new();
    for value in input.as_string::<i32>() {
        let Some(digits) = value else {
            out.append_null();
            continue;
        };
        if let Some(wrong) = digits.chars().find(|c| *c != '0' && *c != '1') {
            return exec_err!("unbin('{digits}'): {wrong:?} is not a binary digit (0 or 1)");
        }
        let digits = digits.as_bytes();
        let mut bytes = Vec::with_capacity(digits.len().div_ceil(8));
        let first = digits.len() % 8;
        let chunks = std::iter::once(&digits[..first]).filter(|c| !c.is_empty()).chain(digits[first..].chunks(8));
        for chunk in chunks {
            bytes.push(chunk.iter().fold(0u8, |byte, d| (byte << 1) | (d - b'0')));
        }
        out.append_value(bytes);
    }
    Ok(Arc::new(out.finish()))
}

/// `to_base(n, radix[, min_length])`: `n` in `radix`'s digits (upper case),
/// zeros in front up to `min_length`.
fn to_base(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let column = |i: usize| arrays.get(i).map(|a| a.as_primitive::<Int64Type>());
    let (numbers, radixes, lengths) = (column(0).unwrap(), column(1).unwrap(), column(2));
    let mut out = StringBuilder::new();
    for row in 0..numbers.len() {
        let length = lengths.map(|l| l.is_valid(row).then(|| l.value(row)));
        if numbers.is_null(row) || radixes.is_null(row) || length == Some(None) {
            out.append_null();
            continue;
        }
        let (n, radix) = (numbers.value(row), radixes.value(row));
        if n < 0 {
            return exec_err!("to_base({n}, {radix}): the number must not be negative");
        }
        if !(2..=36).contains(&radix) {
            return exec_err!("to_base({n}, {radix}): the radix must be between 2 and 36");
        }
        let mut digits = Vec::new();
        let mut rest = n as u64;
        loop {
            digits
                .push(std::char::from_digit((rest % radix as u64) as u32, radix as u32).unwrap().to_ascii_uppercase());
            rest /= radix as u64;
            if rest == 0 {
                break;
            }
        }
        let width = length.flatten().unwrap_or(0);
        if !(0..=64).contains(&width) {
            return exec_err!("to_base({n}, {radix}, {width}): min_length must be between 0 and 64");
        }
        let width = width as usize;
        let padding = "0".repeat(width.saturating_sub(digits.len()));
        out.append_value(padding + &digits.iter().rev().collect::<String>());
    }
    Ok(Arc::new(out.finish()))
}

/// `hash(...)` of each row of `arrays`.
fn hash(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let fields = arrays.iter().map(|a| SortField::new(a.data_type().clone())).collect();
    let converter = RowConverter::new(fields)?;
    let encoded = converter.convert_columns(arrays)?;
    Ok(Arc::new(encoded.iter().map(|row| twox_hash::XxHash3_64::oneshot(row.as_ref())).collect::<UInt64Array>()))
}

/// The SQL names of `types`, for errors.
fn names(types: &[DataType]) -> String {
    types.iter().map(sql_name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::StringArray;

    #[test]
    fn unbin_counts_bytes_from_the_right() {
        let input: ArrayRef = Arc::new(StringArray::from(vec!["111111111", "", "1"]));
        let out = unbin(&input).unwrap();
        let out = out.as_binary::<i32>();
        assert_eq!(out.value(0), &[1u8, 255]);
        assert_eq!(out.value(1), &[] as &[u8]);
        assert_eq!(out.value(2), &[1u8]);
    }
}
