//! File-reading table functions: `read_csv`, `read_parquet`, `read_json`
//! (one document per line, or a file holding one document or an array of
//! them) and `read_arrow`, each taking a path or glob.

pub mod csv_sniff;
pub mod read_options;
pub mod remote;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl};
use datafusion::common::{plan_err, DataFusionError, ScalarValue};
use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::datasource::TableProvider;
use datafusion::error::Result as DFResult;
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::Expr;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr as SqlExpr, FunctionArg, FunctionArgExpr, TableFactor, Value, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::functions::read_options::scalar_string;
pub use crate::functions::read_options::{FileKind, ReadOptions};

/// The Arrow type of the SQL type `text` (`INTEGER`, `DECIMAL(10,2)`), as
/// `CAST(... AS text)` would make it; the text is parsed as a type only.
fn sql_type(state: &SessionState, function: &str, text: &str) -> DFResult<datafusion::arrow::datatypes::DataType> {
    use datafusion::logical_expr::ExprSchemable;
    use datafusion::sql::sqlparser::ast::{CastKind, ExprWithAlias};
    use datafusion::sql::sqlparser::dialect::GenericDialect;
    use datafusion::sql::sqlparser::parser::Parser;
    let unknown = || {
        plan_err!("{function}: '{text}' is not a SQL type (INTEGER, BIGINT, DOUBLE, VARCHAR, DATE, TIMESTAMP, DECIMAL(p,s), ...)")
    };
    let mut parser = match Parser::new(&GenericDialect {}).try_with_sql(text) {
        Ok(p) => p,
        Err(_) => return unknown(),
    };
    let Ok(data_type) = parser.parse_data_type() else { return unknown() };
    if parser.peek_token().token != datafusion::sql::sqlparser::tokenizer::Token::EOF {
        return unknown();
    }
    let cast = SqlExpr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(SqlExpr::Value(Value::Null.into())),
        data_type,
        array: false,
        format: None,
    };
    let empty = datafusion::common::DFSchema::empty();
    match state.create_logical_expr_from_sql_expr(ExprWithAlias { expr: cast, alias: None }, &empty) {
        Ok(planned) => planned.get_type(&empty),
        Err(_) => unknown(),
    }
}

/// `schema` as `options` shape it (CSV): the given columns, every column
/// VARCHAR without type detection, the given names, then the given types
/// (by those names, as in DuckDB).
fn shaped_schema(
    state: &SessionState,
    function: &str,
    schema: SchemaRef,
    options: &ReadOptions,
) -> DFResult<SchemaRef> {
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    if let Some(columns) = &options.columns {
        if columns.len() != fields.len() {
            return plan_err!(
                "{function}: the file has {} columns but columns = {{...}} gives {}",
                fields.len(),
                columns.len()
            );
        }
        fields = columns
            .iter()
            .map(|(name, text)| Ok(Field::new(name, sql_type(state, function, text)?, true)))
            .collect::<DFResult<_>>()?;
    } else if !options.auto_detect {
        fields = fields.into_iter().map(|f| f.with_data_type(DataType::Utf8).with_nullable(true)).collect();
    }
    if let Some(names) = &options.names {
        if names.len() > fields.len() {
            return plan_err!("{function}: names = [...] gives {} names for {} columns", names.len(), fields.len());
        }
        for (field, name) in fields.iter_mut().zip(names) {
            *field = field.clone().with_name(name);
        }
    }
    for (name, text) in &options.types {
        let Some(at) = fields.iter().position(|f| f.name() == name) else {
            let known: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            return plan_err!(
                "{function}: types = {{...}} names column '{name}', which the file does not have (columns: {})",
                known.join(", ")
            );
        };
        fields[at] = fields[at].clone().with_data_type(sql_type(state, function, text)?).with_nullable(true);
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// `options` with the delimiter and header a CSV file at `path` does not
/// state guessed from its first 64 KiB (see [`crate::functions::csv_sniff`]); for a
/// glob or an unreadable file, DuckDB's defaults (`,` and a header).
fn sniffed_options(path: &str, options: &ReadOptions) -> ReadOptions {
    use std::io::Read;
    const SAMPLE: u64 = 64 << 10;
    let mut sample = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(SAMPLE).read_to_end(&mut sample));
    let mut resolved = options.clone();
    if read.is_ok() {
        let whole = (sample.len() as u64) < SAMPLE;
        let dialect = crate::functions::csv_sniff::sniff(
            &sample,
            whole,
            options.quote.unwrap_or(b'"'),
            options.delimiter,
            options.header,
        );
        resolved.delimiter = Some(dialect.delimiter);
        resolved.header = Some(dialect.header);
    }
    resolved
}

/// Builds a table over the file(s) at `path` (a local path or glob), inferring the schema.
pub async fn file_table(
    state: &SessionState,
    path: &str,
    kind: FileKind,
    options: &ReadOptions,
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
    let extension =
        std::path::Path::new(path).extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    if kind == FileKind::Json {
        if let Some(table) = json_document_table(path)? {
            return Ok(table);
        }
    }
    let sniffed;
    let options = match kind {
        FileKind::Csv if options.header.is_none() || options.delimiter.is_none() => {
            sniffed = sniffed_options(path, options);
            &sniffed
        }
        _ => options,
    };
    let listing = ListingOptions::new(kind.format(options)).with_file_extension(extension);
    let mut schema = listing.infer_schema(state, &url).await?;
    if kind == FileKind::Csv {
        schema = shaped_schema(state, kind.function_name(), schema, options)?;
    }
    // DataFusion's CSV reader ignores the NULL text (its inference heeds
    // it): read every column as text and turn the NULL text into NULL and
    // the rest into the inferred type.
    let nulls = options.null.as_ref().filter(|_| kind == FileKind::Csv);
    let read_schema = match nulls {
        Some(_) => Arc::new(datafusion::arrow::datatypes::Schema::new(
            schema
                .fields()
                .iter()
                .map(|f| {
                    f.as_ref().clone().with_data_type(datafusion::arrow::datatypes::DataType::Utf8).with_nullable(true)
                })
                .collect::<Vec<_>>(),
        )),
        None => schema.clone(),
    };
    let config = ListingTableConfig::new(url).with_listing_options(listing).with_schema(read_schema);
    let mut table: Arc<dyn TableProvider> = Arc::new(ListingTable::try_new(config)?);
    if let Some(null) = nulls {
        table = with_nulls(state, table, &schema, null)?;
    }
    match &options.date_format {
        Some(format) => with_dates(state, table, format).await,
        None => Ok(table),
    }
}

/// The rows of a JSON file that holds one document or an array of them
/// (not one document per line, which DataFusion's reader takes): each
/// object of the array (or the document) is a row. `None` for any other file.
fn json_document_table(path: &str) -> DFResult<Option<Arc<dyn TableProvider>>> {
    use datafusion::arrow::json::reader::{infer_json_schema_from_iterator, ReaderBuilder};
    use serde_json::Value;
    let file = std::path::Path::new(path);
    if !file.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(file).map_err(|e| DataFusionError::External(Box::new(e)))?;
    let rows: Vec<Value> = match text.trim_start().as_bytes().first() {
        Some(b'[') => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(items)) => items,
            Ok(_) => return Ok(None),
            Err(e) => return plan_err!("read_json: '{path}' is not valid JSON: {e}"),
        },
        Some(b'{') => match serde_json::from_str::<Value>(&text) {
            Ok(document @ Value::Object(_)) => vec![document],
            _ => return Ok(None), // one document per line
        },
        _ => return Ok(None),
    };
    if let Some(bad) = rows.iter().find(|r| !r.is_object()) {
        return plan_err!("read_json: '{path}' holds an array of {bad}, not of objects (one object per row)");
    }
    let inferred = infer_json_schema_from_iterator(rows.iter().map(Ok::<_, datafusion::arrow::error::ArrowError>))?;
    // Columns in the order the keys first appear (serde_json's maps sort them).
    let order = key_order(&text);
    let mut fields: Vec<_> = inferred.fields().iter().cloned().collect();
    fields.sort_by_key(|f| order.iter().position(|k| k == f.name()).unwrap_or(usize::MAX));
    let schema = Arc::new(datafusion::arrow::datatypes::Schema::new(fields));
    let mut decoder = ReaderBuilder::new(schema.clone()).build_decoder()?;
    decoder.serialize(&rows)?;
    let batches: Vec<_> = decoder.flush()?.into_iter().collect();
    Ok(Some(Arc::new(datafusion::datasource::MemTable::try_new(schema, vec![batches])?)))
}

/// The keys of the objects in JSON `text` (one object or an array of
/// them), in the order they first appear.
fn key_order(text: &str) -> Vec<String> {
    use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    struct Keys(Vec<String>);
    impl<'de> Deserialize<'de> for Keys {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Walk;
            impl<'de> Visitor<'de> for Walk {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a JSON object or array of objects")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some(key) = map.next_key::<String>()? {
                        map.next_value::<IgnoredAny>()?;
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Keys, A::Error> {
                    let mut keys: Vec<String> = Vec::new();
                    while let Some(Keys(more)) = seq.next_element::<Keys>()? {
                        for k in more {
                            if !keys.contains(&k) {
                                keys.push(k);
                            }
                        }
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_any(Walk)
        }
    }
    serde_json::from_str::<Keys>(text).map(|k| k.0).unwrap_or_default()
}

/// A frame reading all of `table`, to build a view over it.
fn scan_frame(state: &SessionState, table: Arc<dyn TableProvider>) -> DFResult<datafusion::dataframe::DataFrame> {
    let plan = datafusion::logical_expr::LogicalPlanBuilder::scan(
        "file",
        datafusion::datasource::provider_as_source(table),
        None,
    )?
    .build()?;
    Ok(datafusion::dataframe::DataFrame::new(state.clone(), plan))
}

/// `table` (every column text) with `null` as NULL and each column cast to
/// its type in `typed`.
fn with_nulls(
    state: &SessionState,
    table: Arc<dyn TableProvider>,
    typed: &SchemaRef,
    null: &str,
) -> DFResult<Arc<dyn TableProvider>> {
    use datafusion::logical_expr::{cast, col, lit};
    let frame = scan_frame(state, table)?;
    let exprs = typed.fields().iter().map(|f| {
        let text = col(datafusion::common::Column::new_unqualified(f.name()));
        cast(datafusion::functions::expr_fn::nullif(text, lit(null)), f.data_type().clone()).alias(f.name())
    });
    Ok(frame.select(exprs.collect::<Vec<_>>())?.into_view())
}

/// `table` with each text column whose first values all read as dates in
/// strftime `format` turned into a DATE column (`to_date(column, format)`).
async fn with_dates(
    state: &SessionState,
    table: Arc<dyn TableProvider>,
    format: &str,
) -> DFResult<Arc<dyn TableProvider>> {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::DataType;
    use datafusion::logical_expr::{col, lit};
    const SAMPLE: usize = 1000;
    let frame = scan_frame(state, table)?;
    let sample = frame.clone().limit(0, Some(SAMPLE))?.collect().await?;
    let schema = frame.schema().clone();
    let mut exprs = Vec::new();
    for (i, field) in schema.fields().iter().enumerate() {
        let column = col(datafusion::common::Column::new_unqualified(field.name()));
        let is_date = field.data_type() == &DataType::Utf8
            && sample.iter().any(|b| b.column(i).null_count() < b.num_rows())
            && sample.iter().all(|b| {
                let values = b.column(i).as_string::<i32>();
                values.iter().flatten().all(|v| chrono::NaiveDate::parse_from_str(v, format).is_ok())
            });
        exprs.push(match is_date {
            true => datafusion::functions::expr_fn::to_date(vec![column, lit(format)]).alias(field.name()),
            false => column,
        });
    }
    Ok(frame.select(exprs)?.into_view())
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
        Expr::Literal(value, _) => scalar_string(value),
        _ => None,
    }
}

impl TableFunctionImpl for ReadFile {
    fn call_with_args(&self, args: TableFunctionArgs) -> DFResult<Arc<dyn TableProvider>> {
        let name = self.kind.function_name();
        if !self.allowed {
            return plan_err!(
                "{name} reads files, and external access is disabled for this database (external_access=False)"
            );
        }
        let exprs = args.exprs();
        let Some(path) = exprs.first().and_then(literal_string) else {
            return plan_err!("{name} takes a file path as a string literal, e.g. {name}('data.csv')");
        };
        let mut options = ReadOptions::default();
        match exprs.get(1) {
            // read_csv('f', header = true, delim = ';'): see `named_options`, which made them name, value pairs.
            Some(Expr::Literal(ScalarValue::Utf8(Some(first)), _)) if first.starts_with(OPTION_MARK) => {
                for pair in exprs[1..].chunks(2) {
                    let (Some(Expr::Literal(ScalarValue::Utf8(Some(option)), _)), Some(Some(value))) =
                        (pair.first(), pair.get(1).map(constant))
                    else {
                        return plan_err!("{name}: options are written name = value, e.g. {name}('data.csv', header = false, delim = ';')");
                    };
                    options.set(name, option.trim_start_matches(OPTION_MARK), &value)?;
                }
            }
            // The older positional form: read_csv('f', header, delimiter).
            None => {}
            Some(Expr::Literal(ScalarValue::Boolean(Some(b)), _)) => {
                options.header = Some(*b);
                match exprs.get(2).map(literal_string) {
                    None => {}
                    Some(Some(d)) if d.len() == 1 => options.delimiter = Some(d.as_bytes()[0]),
                    Some(_) => return plan_err!("{name}: third argument (delimiter) must be a one-character string"),
                }
            }
            Some(other) => return plan_err!("{name}: options are written name = value (header = false), not {other}"),
        }
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
                .spawn(|| handle.block_on(file_table(state, &path, kind, &options)))
                .join()
                .unwrap_or_else(|_| plan_err!("{name}: schema inference failed"))
        })
    }
}

/// The value of `expr` if it is a constant: a literal, or a list or struct
/// of literals (`['a', 'b']`, `{'a': 'INTEGER'}`) folded into one.
fn constant(expr: &Expr) -> Option<ScalarValue> {
    use datafusion::optimizer::simplify_expressions::ExprSimplifier;
    if let Expr::Literal(value, _) = expr {
        return Some(value.clone());
    }
    let simplifier = ExprSimplifier::new(datafusion::logical_expr::simplify::SimplifyContext::builder().build());
    match simplifier.simplify(expr.clone()).ok()? {
        Expr::Literal(value, _) => Some(value),
        _ => None,
    }
}

/// Marks a `read_*` argument that names an option (see [`named_options`]).
const OPTION_MARK: &str = "\u{1}";

/// Rewrites the options of file-reading functions, written as DuckDB does
/// (`read_csv('f.csv', header = false, delim = ';')` or with `=>`), into
/// name, value pairs of literals, which table functions can take (DataFusion
/// would plan `header = false` as a comparison with a column `header`).
pub fn named_options(statement: &mut DFStatement) {
    struct Options;
    impl VisitorMut for Options {
        type Break = ();
        fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
            let TableFactor::Table { name, args: Some(args), .. } = factor else { return ControlFlow::Continue(()) };
            let function = name.to_string().to_ascii_lowercase();
            if ![FileKind::Csv, FileKind::Parquet, FileKind::Json, FileKind::Arrow]
                .iter()
                .any(|k| k.function_name() == function)
            {
                return ControlFlow::Continue(());
            }
            let mut out = Vec::with_capacity(args.args.len() * 2);
            for arg in std::mem::take(&mut args.args) {
                let pair = match &arg {
                    FunctionArg::Named { name, arg: FunctionArgExpr::Expr(value), .. } => {
                        Some((name.value.clone(), value.clone()))
                    }
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(SqlExpr::BinaryOp {
                        left,
                        op: BinaryOperator::Eq,
                        right,
                    })) => match left.as_ref() {
                        SqlExpr::Identifier(ident) => Some((ident.value.clone(), right.as_ref().clone())),
                        _ => None,
                    },
                    _ => None,
                };
                match pair {
                    Some((option, value)) => {
                        let marked = SqlExpr::Value(Value::SingleQuotedString(format!("{OPTION_MARK}{option}")).into());
                        out.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(marked)));
                        out.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(value)));
                    }
                    None => out.push(arg),
                }
            }
            args.args = out;
            ControlFlow::Continue(())
        }
    }
    if let DFStatement::Statement(s) = statement {
        let _ = s.visit(&mut Options);
    }
}
