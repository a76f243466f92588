//! What a file-reading table function reads ([`FileKind`]) and how
//! ([`ReadOptions`]: DuckDB's option names for CSV, JSON and Parquet).

use datafusion::common::{plan_err, ScalarValue};
use datafusion::datasource::file_format::arrow::ArrowFormat;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::file_format::json::JsonFormat;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::error::Result as DFResult;
use std::sync::Arc;

/// Which reader a table function uses.
///
/// ```edition2024
/// use swingdb_sql::FileKind;
/// assert_eq!(FileKind::from_name("parquet"), Some(FileKind::Parquet));
/// assert_eq!(FileKind::Csv.function_name(), "read_csv");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Comma-separated values with a header row.
    Csv,
    /// Apache Parquet.
    Parquet,
    /// Newline-delimited JSON.
    Json,
    /// Arrow IPC file.
    Arrow,
}

impl FileKind {
    /// The format's name, as in `FORMAT csv` and DataFusion's writer registry.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Csv => "csv",
            FileKind::Parquet => "parquet",
            FileKind::Json => "json",
            FileKind::Arrow => "arrow",
        }
    }

    /// The SQL function name.
    pub fn function_name(self) -> &'static str {
        match self {
            FileKind::Csv => "read_csv",
            FileKind::Parquet => "read_parquet",
            FileKind::Json => "read_json",
            FileKind::Arrow => "read_arrow",
        }
    }

    /// The kind named by a `FORMAT` option or a file extension.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "csv" | "tsv" | "txt" => Some(FileKind::Csv),
            "parquet" | "pq" => Some(FileKind::Parquet),
            "json" | "jsonl" | "ndjson" => Some(FileKind::Json),
            "arrow" | "ipc" | "feather" => Some(FileKind::Arrow),
            _ => None,
        }
    }

    pub(super) fn format(self, options: &ReadOptions) -> Arc<dyn FileFormat> {
        match self {
            FileKind::Csv => {
                let mut csv = CsvFormat::default()
                    .with_has_header(options.header.unwrap_or(true))
                    .with_delimiter(options.delimiter.unwrap_or(b','));
                if let Some(quote) = options.quote {
                    csv = csv.with_quote(quote);
                }
                if let Some(escape) = options.escape {
                    csv = csv.with_escape(Some(escape));
                }
                if let Some(null) = &options.null {
                    csv = csv.with_null_regex(Some(format!("^{}$", regex_escape(null))));
                }
                Arc::new(csv)
            }
            FileKind::Parquet => Arc::new(ParquetFormat::default()),
            FileKind::Json => Arc::new(JsonFormat::default()),
            FileKind::Arrow => Arc::new(ArrowFormat),
        }
    }
}

/// How to read a file, as `read_csv`'s options (DuckDB's names) give it.
///
/// ```edition2024
/// use datafusion::common::ScalarValue;
/// let mut options = swingdb_sql::ReadOptions::default();
/// options.set("read_csv", "delim", &ScalarValue::from(";")).unwrap();
/// assert_eq!(options.delimiter, Some(b';'));
/// assert!(options.set("read_csv", "delim", &ScalarValue::from(";;")).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOptions {
    /// The first line names the columns (CSV; `None`: guessed, see [`crate::functions::csv_sniff`]).
    pub header: Option<bool>,
    /// The field separator (CSV; `None`: guessed).
    pub delimiter: Option<u8>,
    /// The text that stands for NULL (CSV), e.g. `NA`.
    pub null: Option<String>,
    /// The quote character (CSV).
    pub quote: Option<u8>,
    /// The escape character inside quotes (CSV).
    pub escape: Option<u8>,
    /// A strftime format (`%d/%m/%Y`): text columns whose values all read as
    /// dates in it become DATE columns.
    pub date_format: Option<String>,
    /// The columns' names, in order (CSV), instead of the header's (or
    /// `column0`, ... without one).
    pub names: Option<Vec<String>>,
    /// Every column's name and SQL type, in order (CSV): nothing is detected.
    pub columns: Option<Vec<(String, String)>>,
    /// SQL types of some columns, by name (CSV); the others are detected.
    pub types: Vec<(String, String)>,
    /// Whether column types are detected (CSV); without, every column is VARCHAR.
    pub auto_detect: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            header: None,
            delimiter: None,
            null: None,
            quote: None,
            escape: None,
            date_format: None,
            names: None,
            columns: None,
            types: Vec::new(),
            auto_detect: true,
        }
    }
}

impl ReadOptions {
    /// Sets option `name` (DuckDB's names and a few aliases) to `value`.
    pub fn set(&mut self, function: &str, name: &str, value: &ScalarValue) -> DFResult<()> {
        let text = || match scalar_string(value) {
            Some(s) => Ok(s),
            None => plan_err!("{function}: option {name} takes a string, not {value}"),
        };
        let byte = || -> DFResult<u8> {
            let s = text()?;
            let s = if s == "\\t" { "\t".to_string() } else { s };
            match s.as_bytes() {
                [b] if b.is_ascii() => Ok(*b),
                _ => plan_err!("{function}: option {name} takes one character, not '{s}'"),
            }
        };
        match name.to_ascii_lowercase().as_str() {
            "header" => match value {
                ScalarValue::Boolean(Some(b)) => self.header = Some(*b),
                other => return plan_err!("{function}: option header takes true or false, not {other}"),
            },
            "delim" | "delimiter" | "sep" | "separator" => self.delimiter = Some(byte()?),
            "nullstr" | "null" | "null_string" => self.null = Some(text()?),
            "quote" => self.quote = Some(byte()?),
            "escape" => self.escape = Some(byte()?),
            "dateformat" | "date_format" => self.date_format = Some(text()?),
            "names" | "column_names" => match string_list(value) {
                Some(names) => self.names = Some(names),
                None => return plan_err!("{function}: option {name} takes a list of names, e.g. names = ['a', 'b']"),
            },
            "columns" => match string_pairs(value) {
                Some(columns) => self.columns = Some(columns),
                None => return plan_err!("{function}: option columns takes names and SQL types, e.g. columns = {{'a': 'INTEGER', 'b': 'VARCHAR'}}"),
            },
            "types" | "dtypes" | "column_types" => match string_pairs(value) {
                Some(types) => self.types = types,
                None => return plan_err!("{function}: option {name} takes column names and SQL types, e.g. types = {{'a': 'DOUBLE'}}"),
            },
            "auto_detect" => match value {
                ScalarValue::Boolean(Some(b)) => self.auto_detect = *b,
                other => return plan_err!("{function}: option auto_detect takes true or false, not {other}"),
            },
            other => {
                return plan_err!(
                    "{function}: unknown option '{other}'; options: header, delim (or sep), nullstr, quote, escape, dateformat, names, columns, types, auto_detect"
                )
            }
        }
        Ok(())
    }
}

/// The strings of a list value (`['a', 'b']`).
pub(super) fn string_list(value: &ScalarValue) -> Option<Vec<String>> {
    use datafusion::arrow::array::{Array, AsArray};
    let ScalarValue::List(list) = value else { return None };
    let values = list.values();
    let strings = datafusion::arrow::compute::cast(values, &datafusion::arrow::datatypes::DataType::Utf8).ok()?;
    let strings = strings.as_string::<i32>();
    (0..strings.len()).map(|i| strings.is_valid(i).then(|| strings.value(i).to_string())).collect()
}

/// The fields of a struct value (`{'a': 'INTEGER'}`) as name, text pairs.
pub(super) fn string_pairs(value: &ScalarValue) -> Option<Vec<(String, String)>> {
    use datafusion::arrow::array::{Array, AsArray};
    let ScalarValue::Struct(fields) = value else { return None };
    fields
        .fields()
        .iter()
        .zip(fields.columns())
        .map(|(field, column)| {
            let text = datafusion::arrow::compute::cast(column, &datafusion::arrow::datatypes::DataType::Utf8).ok()?;
            let text = text.as_string::<i32>();
            text.is_valid(0).then(|| (field.name().clone(), text.value(0).to_string()))
        })
        .collect()
}

fn regex_escape(text: &str) -> String {
    text.chars().fold(String::new(), |mut out, c| {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

/// The text of a string value (of any of Arrow's string types).
pub(super) fn scalar_string(value: &ScalarValue) -> Option<String> {
    match value {
        ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)) | ScalarValue::LargeUtf8(Some(s)) => {
            Some(s.clone())
        }
        _ => None,
    }
}
