//! File-reading table functions: `read_csv`, `read_parquet`, `read_json`
//! (newline-delimited JSON) and `read_arrow`, each taking a path or glob.

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl};
use datafusion::common::{plan_err, ScalarValue};
use datafusion::datasource::file_format::arrow::ArrowFormat;
use datafusion::datasource::file_format::csv::CsvFormat;
use datafusion::datasource::file_format::json::JsonFormat;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::datasource::TableProvider;
use datafusion::error::Result as DFResult;
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::Expr;
use std::sync::Arc;

/// Which reader a table function uses.
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

    fn format(self, header: bool, delimiter: u8) -> Arc<dyn FileFormat> {
        match self {
            FileKind::Csv => Arc::new(CsvFormat::default().with_has_header(header).with_delimiter(delimiter)),
            FileKind::Parquet => Arc::new(ParquetFormat::default()),
            FileKind::Json => Arc::new(JsonFormat::default()),
            FileKind::Arrow => Arc::new(ArrowFormat),
        }
    }
}

/// Builds a table over the file(s) at `path` (a local path or glob), inferring the schema.
pub async fn file_table(
    state: &SessionState,
    path: &str,
    kind: FileKind,
    header: bool,
    delimiter: u8,
) -> DFResult<Arc<dyn TableProvider>> {
    if !path.contains(['*', '?', '[']) && !std::path::Path::new(path).exists() && !path.contains("://") {
        let relative = std::path::Path::new(path).is_relative();
        let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_else(|_| "?".into());
        return match relative {
            true => plan_err!("file '{path}' does not exist (looked in the working directory, {cwd})"),
            false => plan_err!("file '{path}' does not exist"),
        };
    }
    let url = ListingTableUrl::parse(path)?;
    let extension = std::path::Path::new(path)
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let options = ListingOptions::new(kind.format(header, delimiter)).with_file_extension(extension);
    let schema = options.infer_schema(state, &url).await?;
    let config = ListingTableConfig::new(url).with_listing_options(options).with_schema(schema);
    Ok(Arc::new(ListingTable::try_new(config)?))
}

/// `read_csv('path' [, header [, delimiter]])` and friends.
#[derive(Debug)]
pub struct ReadFile {
    kind: FileKind,
    allowed: bool,
}

impl ReadFile {
    /// A table function of `kind`; refuses to run unless `allowed`.
    pub fn new(kind: FileKind, allowed: bool) -> Self {
        Self { kind, allowed }
    }
}

fn literal_string(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)) | ScalarValue::LargeUtf8(Some(s)), _) => {
            Some(s.clone())
        }
        _ => None,
    }
}

impl TableFunctionImpl for ReadFile {
    fn call_with_args(&self, args: TableFunctionArgs) -> DFResult<Arc<dyn TableProvider>> {
        let name = self.kind.function_name();
        if !self.allowed {
            return plan_err!("{name} reads files, and external access is disabled for this database (external_access=False)");
        }
        let exprs = args.exprs();
        let Some(path) = exprs.first().and_then(literal_string) else {
            return plan_err!("{name} takes a file path as a string literal, e.g. {name}('data.csv')");
        };
        let header = match exprs.get(1) {
            None => true,
            Some(Expr::Literal(ScalarValue::Boolean(Some(b)), _)) => *b,
            Some(other) => return plan_err!("{name}: second argument (header) must be true or false, got {other}"),
        };
        let delimiter = match exprs.get(2).map(literal_string) {
            None => b',',
            Some(Some(d)) if d.len() == 1 => d.as_bytes()[0],
            Some(_) => return plan_err!("{name}: third argument (delimiter) must be a one-character string"),
        };
        let Some(state) = args.session().as_any().downcast_ref::<SessionState>() else {
            return plan_err!("{name}: unsupported session type");
        };
        let kind = self.kind;
        // Schema inference is async and table functions are not: run it to
        // completion on a helper thread outside any async context, where blocking
        // on the runtime is allowed whatever thread planning runs on.
        let handle = tokio::runtime::Handle::current();
        std::thread::scope(|scope| {
            scope
                .spawn(|| handle.block_on(file_table(state, &path, kind, header, delimiter)))
                .join()
                .unwrap_or_else(|_| plan_err!("{name}: schema inference failed"))
        })
    }
}
