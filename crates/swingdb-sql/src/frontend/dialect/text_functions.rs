//! DuckDB's text functions that DataFusion lacks, with DuckDB's answers:
//! `url_encode` / `url_decode`, `regexp_escape`, `strip_accents`,
//! `nfc_normalize`, `regexp_split_to_array` (and its aliases
//! `string_split_regex`, `str_split_regex`), `regexp_extract_all` and
//! `format_bytes` / `parse_formatted_bytes`. NULL in gives NULL out.

use crate::byte_sizes::{format_bytes, parse_size};
use datafusion::arrow::array::{ArrayRef, AsArray, GenericListBuilder, StringArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{exec_err, Result};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use regex::Regex;
use std::sync::Arc;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// What a function does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    UrlEncode,
    UrlDecode,
    RegexpEscape,
    StripAccents,
    NfcNormalize,
    RegexpSplit,
    RegexpExtractAll,
    FormatBytes,
    ParseFormattedBytes,
}

/// The functions, under each of their names.
pub fn functions() -> Vec<ScalarUDF> {
    let names = [
        ("url_encode", Kind::UrlEncode),
        ("url_decode", Kind::UrlDecode),
        ("regexp_escape", Kind::RegexpEscape),
        ("strip_accents", Kind::StripAccents),
        ("nfc_normalize", Kind::NfcNormalize),
        ("regexp_split_to_array", Kind::RegexpSplit),
        ("string_split_regex", Kind::RegexpSplit),
        ("str_split_regex", Kind::RegexpSplit),
        ("regexp_extract_all", Kind::RegexpExtractAll),
        ("format_bytes", Kind::FormatBytes),
        ("parse_formatted_bytes", Kind::ParseFormattedBytes),
    ];
    names
        .into_iter()
        .map(|(name, kind)| {
            let arguments = match kind {
                Kind::RegexpSplit | Kind::RegexpExtractAll => vec![DataType::Utf8, DataType::Utf8],
                Kind::FormatBytes => vec![DataType::Int64],
                _ => vec![DataType::Utf8],
            };
            ScalarUDF::new_from_impl(TextFunction {
                name,
                kind,
                signature: Signature::exact(arguments, Volatility::Immutable),
            })
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct TextFunction {
    name: &'static str,
    kind: Kind,
    signature: Signature,
}

/// What `url_encode` leaves as it is, as DuckDB: letters, digits and `-._~`.
const URL_KEPT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

impl ScalarUDFImpl for TextFunction {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::RegexpSplit | Kind::RegexpExtractAll => {
                DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
            }
            Kind::ParseFormattedBytes => DataType::UInt64,
            _ => DataType::Utf8,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let out: ArrayRef = match self.kind {
            Kind::RegexpSplit | Kind::RegexpExtractAll => self.lists(&arrays)?,
            Kind::FormatBytes => {
                let bytes = cast(&arrays[0], &DataType::Int64)?;
                let bytes = bytes.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
                Arc::new(bytes.iter().map(|b| b.map(format_bytes)).collect::<StringArray>())
            }
            Kind::ParseFormattedBytes => {
                let text = cast(&arrays[0], &DataType::Utf8)?;
                let mut out = datafusion::arrow::array::UInt64Builder::new();
                for value in text.as_string::<i32>() {
                    out.append_option(match value.map(|v| (v, parse_size(v))) {
                        None => None,
                        Some((_, Some(bytes))) => Some(bytes),
                        Some((v, None)) => {
                            return exec_err!("parse_formatted_bytes: '{v}' is not a size such as '16 MB' or '1.5 GiB'")
                        }
                    });
                }
                Arc::new(out.finish())
            }
            _ => {
                let text = cast(&arrays[0], &DataType::Utf8)?;
                let mut out = StringBuilder::new();
                for value in text.as_string::<i32>() {
                    match value {
                        None => out.append_null(),
                        Some(s) => out.append_value(self.map(s)?),
                    }
                }
                Arc::new(out.finish())
            }
        };
        Ok(ColumnarValue::Array(out))
    }
}

impl TextFunction {
    fn map(&self, s: &str) -> Result<String> {
        Ok(match self.kind {
            Kind::UrlEncode => utf8_percent_encode(s, URL_KEPT).to_string(),
            Kind::UrlDecode => match percent_decode_str(s).decode_utf8() {
                Ok(decoded) => decoded.into_owned(),
                Err(_) => return exec_err!("url_decode: '{s}' does not decode to UTF-8 text"),
            },
            Kind::RegexpEscape => quote_meta(s),
            Kind::StripAccents => s.nfd().filter(|c| !is_combining_mark(*c)).collect(),
            Kind::NfcNormalize => s.nfc().collect(),
            _ => unreachable!("not a text-to-text function"),
        })
    }

    /// The pieces of each text split at (or the matches of) each pattern.
    fn lists(&self, arrays: &[ArrayRef]) -> Result<ArrayRef> {
        let (text, patterns) = (cast(&arrays[0], &DataType::Utf8)?, cast(&arrays[1], &DataType::Utf8)?);
        let mut out = GenericListBuilder::<i32, _>::new(StringBuilder::new());
        let mut compiled: Option<(String, Regex)> = None;
        for (value, pattern) in text.as_string::<i32>().iter().zip(patterns.as_string::<i32>()) {
            let (Some(value), Some(pattern)) = (value, pattern) else {
                out.append(false);
                continue;
            };
            if compiled.as_ref().is_none_or(|(p, _)| p != pattern) {
                let regex = Regex::new(pattern)
                    .or_else(|e| exec_err!("{}: '{pattern}' is not a regular expression: {e}", self.name))?;
                compiled = Some((pattern.to_string(), regex));
            }
            let regex = &compiled.as_ref().expect("just compiled").1;
            match self.kind {
                Kind::RegexpSplit => regex.split(value).for_each(|piece| out.values().append_value(piece)),
                _ => regex.find_iter(value).for_each(|found| out.values().append_value(found.as_str())),
            }
            out.append(true);
        }
        Ok(Arc::new(out.finish()))
    }
}

/// `s` with every ASCII character but letters, digits and `_` escaped by a
/// backslash (NUL as `\x00`), as RE2's `QuoteMeta` behind DuckDB's
/// `regexp_escape` (the regex crate's `escape` leaves spaces and more).
fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        match c {
            '\0' => out.push_str("\\x00"),
            c if c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii() => out.push(c),
            c => {
                out.push('\\');
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexp_escape_quotes_what_re2_quotes() {
        assert_eq!(quote_meta("a+b (c)_é\0"), "a\\+b\\ \\(c\\)_é\\x00");
    }
}
