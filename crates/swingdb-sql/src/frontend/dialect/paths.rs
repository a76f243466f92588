//! DuckDB's functions on file paths written as text, with DuckDB's answers:
//! `parse_path(p[, separator])` (the components; a leading `/` is one),
//! `parse_dirname` (the first directory), `parse_dirpath` (all before the
//! last separator), `parse_filename(p[, trim_extension][, separator])`,
//! `path_join(a, b, ...)` and `hive_partition_component(key, value)`
//! (`key=value`, both percent-encoded, NULL as Hive's default partition).
//!
//! `separator` is `'both_slash'` (the default: `/` and `\`),
//! `'forward_slash'`, `'backslash'` or `'system'` (`/` here).

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, ListBuilder, StringArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use std::sync::Arc;

/// What a function answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Path,
    Dirname,
    Dirpath,
    Filename,
    Join,
    HivePartition,
}

/// The functions.
pub fn functions() -> Vec<ScalarUDF> {
    [
        ("parse_path", Kind::Path),
        ("parse_dirname", Kind::Dirname),
        ("parse_dirpath", Kind::Dirpath),
        ("parse_filename", Kind::Filename),
        ("path_join", Kind::Join),
        ("hive_partition_component", Kind::HivePartition),
    ]
    .into_iter()
    .map(|(name, kind)| {
        ScalarUDF::new_from_impl(PathFunction { name, kind, signature: Signature::user_defined(Volatility::Immutable) })
    })
    .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct PathFunction {
    name: &'static str,
    kind: Kind,
    signature: Signature,
}

/// What Hive's partition names leave as it is: letters, digits and `-._~`.
const HIVE_KEPT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

impl ScalarUDFImpl for PathFunction {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name;
        let most = match self.kind {
            Kind::Join => usize::MAX,
            Kind::HivePartition => 2,
            Kind::Filename => 3,
            _ => 2,
        };
        if args.is_empty() || args.len() > most || (self.kind == Kind::HivePartition && args.len() != 2) {
            return plan_err!("{name}() does not take {} arguments", args.len());
        }
        Ok(args
            .iter()
            .enumerate()
            .map(|(i, t)| match (self.kind, i, t) {
                (Kind::HivePartition, 1, t) => t.clone(),
                (Kind::Filename, 1, DataType::Boolean) => DataType::Boolean,
                _ => DataType::Utf8,
            })
            .collect())
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::Path => DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
            _ => DataType::Utf8,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let out: ArrayRef = match self.kind {
            Kind::Join => join(&arrays)?,
            Kind::HivePartition => hive_partition(&arrays)?,
            Kind::Path => {
                let paths = arrays[0].as_string::<i32>();
                let mut out = ListBuilder::new(StringBuilder::new());
                for row in 0..paths.len() {
                    match (paths.is_valid(row), separators(&arrays, 1, row)?) {
                        (true, Some(separators)) => {
                            components(paths.value(row), separators).for_each(|c| out.values().append_value(c));
                            out.append(true);
                        }
                        _ => out.append_null(),
                    }
                }
                Arc::new(out.finish())
            }
            _ => self.parts(&arrays)?,
        };
        Ok(ColumnarValue::Array(out))
    }
}

impl PathFunction {
    /// `parse_dirname`, `parse_dirpath` or `parse_filename` of each row.
    fn parts(&self, arrays: &[ArrayRef]) -> Result<ArrayRef> {
        let paths = arrays[0].as_string::<i32>();
        // parse_filename(p, trim_extension[, separator]) or parse_filename(p, separator).
        let (trims, separator_at) = match arrays.get(1).map(|a| a.data_type()) {
            Some(DataType::Boolean) => (Some(arrays[1].as_boolean()), 2),
            _ => (None::<&BooleanArray>, 1),
        };
        let mut out = StringBuilder::new();
        for row in 0..paths.len() {
            let trim = trims.map(|t| t.is_valid(row).then(|| t.value(row)));
            let (Some(separators), true, false) =
                (separators(arrays, separator_at, row)?, paths.is_valid(row), trim == Some(None))
            else {
                out.append_null();
                continue;
            };
            let path = paths.value(row);
            let last = path.rfind(separators);
            out.append_value(match self.kind {
                Kind::Dirname if last.is_none() => "",
                Kind::Dirname => components(path, separators).next().unwrap_or(""),
                Kind::Dirpath => last.map_or("", |at| &path[..at]),
                _ => {
                    let name = last.map_or(path, |at| &path[at + 1..]);
                    match trim.flatten().unwrap_or(false) {
                        true => name.rfind('.').map_or(name, |dot| &name[..dot]),
                        false => name,
                    }
                }
            });
        }
        Ok(Arc::new(out.finish()))
    }
}

/// The separators named in argument `at` of `row` (none given: both
/// slashes); `None` when it is NULL.
fn separators(arrays: &[ArrayRef], at: usize, row: usize) -> Result<Option<&'static [char]>> {
    let Some(names) = arrays.get(at) else { return Ok(Some(&['/', '\\'])) };
    let names = names.as_string::<i32>();
    if names.is_null(row) {
        return Ok(None);
    }
    Ok(Some(match names.value(row).to_ascii_lowercase().as_str() {
        "both_slash" => &['/', '\\'],
        "forward_slash" | "system" => &['/'],
        "backslash" => &['\\'],
        other => {
            return exec_err!(
                "'{other}' is not a path separator: use 'both_slash', 'forward_slash', 'backslash' or 'system'"
            )
        }
    }))
}

/// The components of `path`: a leading separator is one, empty ones are left out.
fn components<'a>(path: &'a str, separators: &'static [char]) -> impl Iterator<Item = &'a str> + 'a {
    let root = path.starts_with(separators).then(|| &path[..1]);
    root.into_iter().chain(path.split(separators).filter(|c| !c.is_empty()))
}

/// `path_join(a, b, ...)`: the parts joined by `/`, empty ones left out; an
/// absolute part after the first is an error.
fn join(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let parts: Vec<&StringArray> = arrays.iter().map(|a| a.as_string::<i32>()).collect();
    let mut out = StringBuilder::new();
    for row in 0..arrays[0].len() {
        if parts.iter().any(|p| p.is_null(row)) {
            out.append_null();
            continue;
        }
        let mut joined = String::new();
        for part in parts.iter().map(|p| p.value(row)).filter(|p| !p.is_empty()) {
            if !joined.is_empty() && part.starts_with('/') {
                return exec_err!("path_join: cannot join the absolute path \"{part}\" onto \"{joined}\"");
            }
            if !joined.is_empty() && !joined.ends_with('/') {
                joined.push('/');
            }
            joined.push_str(part);
        }
        out.append_value(joined);
    }
    Ok(Arc::new(out.finish()))
}

/// `hive_partition_component(key, value)` of each row.
fn hive_partition(arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let keys = arrays[0].as_string::<i32>();
    let values = cast(&arrays[1], &DataType::Utf8)?;
    let values = values.as_string::<i32>();
    let mut out = StringBuilder::new();
    for row in 0..keys.len() {
        if keys.is_null(row) {
            out.append_null();
            continue;
        }
        let value = match values.is_valid(row) {
            true => utf8_percent_encode(values.value(row), HIVE_KEPT).to_string(),
            false => "__HIVE_DEFAULT_PARTITION__".to_string(),
        };
        out.append_value(format!("{}={value}", utf8_percent_encode(keys.value(row), HIVE_KEPT)));
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_separator_is_a_component() {
        let both: &'static [char] = &['/', '\\'];
        assert_eq!(components("/a//b/", both).collect::<Vec<_>>(), ["/", "a", "b"]);
        assert_eq!(components("", both).count(), 0);
        assert_eq!(components("a\\b", &['/']).collect::<Vec<_>>(), ["a\\b"]);
    }
}
