//! PostgreSQL as a pipe end, through its binary COPY protocol in both
//! directions (see [`binary`]):
//!
//! - `SELECT * FROM 'postgresql://user@host/db?table=t&workers=4'` (or
//!   `?query=SELECT ...`) streams `COPY (...) TO STDOUT (FORMAT binary)` into
//!   Arrow batches. With several workers a table is read in ranges of its pages
//!   (`ctid`), each on its own connection, all inside one snapshot exported by
//!   a coordinating connection, so together they see one consistent state.
//! - `COPY t TO 'postgresql://...?table=x'` streams Arrow batches as
//!   `COPY x FROM STDIN (FORMAT binary)` in one transaction (creating `x` if it
//!   does not exist): all rows arrive or none.
//!
//! Every URL parameter other than `table`, `query`, `workers` and `batch_rows`
//! goes to the connection (`host` may name a Unix socket directory). Table
//! names are parsed and quoted by PostgreSQL itself (`parse_ident`,
//! `quote_ident`, `regclass`), passed as parameters: no name is pasted into SQL.

pub mod binary;

use binary::{PgColumn, PgKind};
use bytes::BytesMut;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::{cast_with_options, CastOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::streaming::PartitionStream;
use futures::{SinkExt, StreamExt};
use std::str::FromStr;
use std::sync::Arc;
use swingdb_storage::error::{Error, ErrorKind, Result};
use tokio::sync::mpsc;
use tokio_postgres::{Client, NoTls};

/// Rows per Arrow batch decoded from PostgreSQL unless `batch_rows=` says otherwise.
const BATCH_ROWS: usize = 64 * 1024;
/// Bytes of binary COPY data sent to PostgreSQL per message.
const SEND_CHUNK: usize = 1 << 20;

/// A parsed `postgres://` / `postgresql://` URL.
#[derive(Clone)]
pub struct PgUrl {
    config: tokio_postgres::Config,
    /// `table=`: a table (or view) name, as PostgreSQL would parse it.
    pub table: Option<String>,
    /// `query=`: a query to read instead of a table.
    pub query: Option<String>,
    /// `workers=`: parallel connections reading a table.
    pub workers: usize,
    batch_rows: usize,
    shown: String,
}

impl std::fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.shown)
    }
}

/// `text` with its percent-escapes decoded; an escape without two hex digits
/// is an error (a lenient decoder would pass it on as text).
fn percent_decode(text: &str) -> Result<String> {
    for (i, _) in text.match_indices('%') {
        let hex = text.get(i + 1..i + 3);
        if !hex.is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit())) {
            let shown: String = text[i + 1..].chars().take(2).collect();
            return Err(Error::programming(format!("bad percent-escape '%{shown}' in a PostgreSQL URL")));
        }
    }
    let decoded = percent_encoding::percent_decode_str(text).decode_utf8();
    Ok(decoded.map_err(|_| Error::programming("a PostgreSQL URL parameter is not UTF-8"))?.into_owned())
}

impl PgUrl {
    /// Whether `text` is a PostgreSQL URL.
    pub fn is_postgres(text: &str) -> bool {
        let lower = text.get(..13).unwrap_or(text).to_ascii_lowercase();
        lower.starts_with("postgres://") || lower.starts_with("postgresql://")
    }

    /// Parses the URL; swingdb's own parameters are taken out, the rest
    /// configure the connection.
    pub fn parse(text: &str) -> Result<Self> {
        let (base, query) = text.split_once('?').unwrap_or((text, ""));
        let mut url = Self {
            config: tokio_postgres::Config::new(),
            table: None,
            query: None,
            workers: 1,
            batch_rows: BATCH_ROWS,
            shown: String::new(),
        };
        let mut rest = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "table" => url.table = Some(percent_decode(value)?),
                "query" => url.query = Some(percent_decode(value)?),
                "workers" => {
                    url.workers =
                        value.parse().ok().filter(|n| (1..=64).contains(n)).ok_or_else(|| {
                            Error::programming(format!("workers={value} must be a number from 1 to 64"))
                        })?
                }
                "batch_rows" => {
                    url.batch_rows =
                        value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                            Error::programming(format!("batch_rows={value} must be a positive number"))
                        })?
                }
                _ => rest.push(pair),
            }
        }
        if url.table.is_some() && url.query.is_some() {
            return Err(Error::programming("a PostgreSQL URL takes table= or query=, not both"));
        }
        let connection = if rest.is_empty() { base.to_string() } else { format!("{base}?{}", rest.join("&")) };
        url.config = tokio_postgres::Config::from_str(&connection)
            .map_err(|e| Error::programming(format!("invalid PostgreSQL URL: {e}")))?;
        if url.config.get_ssl_mode() == tokio_postgres::config::SslMode::Require {
            return Err(Error::new(
                ErrorKind::NotSupported,
                "sslmode=require is not supported yet; connect over a local socket or a trusted network",
            ));
        }
        let what =
            url.table.as_deref().map(|t| format!("table {t}")).or(url.query.as_ref().map(|_| "a query".to_string()));
        url.shown = format!(
            "PostgreSQL database '{}'{}",
            url.config.get_dbname().unwrap_or("postgres"),
            what.map(|w| format!(" ({w})")).unwrap_or_default()
        );
        Ok(url)
    }

    async fn connect(&self) -> Result<Client> {
        let (client, connection) =
            self.config.connect(NoTls).await.map_err(|e| pg_error(&self.shown, "connecting", e))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(client)
    }
}

/// A PostgreSQL error as a swingdb error of the matching kind.
fn pg_error(url: &str, doing: &str, e: tokio_postgres::Error) -> Error {
    match e.as_db_error() {
        Some(db) => {
            let kind = match &db.code().code()[..2] {
                "42" => ErrorKind::Programming,
                "22" => ErrorKind::Data,
                "23" => ErrorKind::Integrity,
                "0A" => ErrorKind::NotSupported,
                _ => ErrorKind::Operational,
            };
            let hint = db.hint().map(|h| format!(" ({h})")).unwrap_or_default();
            Error::new(kind, format!("{url}: {doing}: {}{hint}", db.message()))
        }
        None => Error::operational(format!("{url}: {doing}: {e}")),
    }
}

/// Columns of relation `table` (a name PostgreSQL parses), and its quoted name.
async fn table_columns(client: &Client, url: &PgUrl, table: &str) -> Result<(String, Vec<PgColumn>)> {
    let row = client
        .query_one("SELECT to_regclass($1)::text", &[&table])
        .await
        .map_err(|e| pg_error(&url.shown, "looking up the table", e))?;
    let quoted: Option<String> = row.get(0);
    let quoted = quoted.ok_or_else(|| Error::programming(format!("{}: table '{table}' does not exist", url.shown)))?;
    let rows = client
        .query(
            "SELECT a.attname::text, \
                    (CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE a.atttypid END)::int8, \
                    CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END, \
                    format_type(a.atttypid, a.atttypmod) \
             FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
             WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            &[&table],
        )
        .await
        .map_err(|e| pg_error(&url.shown, "reading the table's columns", e))?;
    let columns = rows
        .iter()
        .map(|r| {
            let (name, oid, typmod, shown): (String, i64, i32, String) = (r.get(0), r.get(1), r.get(2), r.get(3));
            let kind = PgKind::from_oid(oid as u32, typmod).ok_or_else(|| unsupported(url, &name, &shown))?;
            Ok(PgColumn { name, kind })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((quoted, columns))
}

fn unsupported(url: &PgUrl, column: &str, type_name: &str) -> Error {
    Error::new(
        ErrorKind::NotSupported,
        format!(
            "{}: column '{column}' has type {type_name}, which swingdb does not convert; \
             cast it in a query (?query=SELECT {column}::text ...)",
            url.shown
        ),
    )
}

/// `"name"` with quotes doubled: an identifier as an identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// What a scan of PostgreSQL reads.
#[derive(Debug)]
struct Source {
    url: PgUrl,
    columns: Vec<PgColumn>,
    /// The COPY statement of each partition.
    statements: Vec<String>,
    /// The snapshot every partition reads in (several workers only).
    snapshot: Option<String>,
    /// Keeps the snapshot alive until every partition has taken it.
    _coordinator: Option<Client>,
}

/// Opens a read of the table or query of `url`: learns the columns and, for
/// a table with several workers, splits it into page ranges in one snapshot.
pub async fn open_source(url: &PgUrl) -> Result<(SchemaRef, Vec<Arc<dyn PartitionStream>>)> {
    let client = url.connect().await?;
    let (columns, from, splittable) = match (&url.table, &url.query) {
        (Some(table), None) => {
            let (quoted, columns) = table_columns(&client, url, table).await?;
            (columns, quoted, true)
        }
        (None, Some(query)) => {
            let statement = client.prepare(query).await.map_err(|e| pg_error(&url.shown, "preparing the query", e))?;
            let columns = statement
                .columns()
                .iter()
                .map(|c| {
                    let kind = PgKind::from_oid(c.type_().oid(), -1)
                        .ok_or_else(|| unsupported(url, c.name(), c.type_().name()))?;
                    Ok(PgColumn { name: c.name().to_string(), kind })
                })
                .collect::<Result<Vec<_>>>()?;
            (columns, format!("({query}) AS q"), false)
        }
        _ => return Err(Error::programming(format!("{}: add ?table=NAME or ?query=SELECT... to the URL", url.shown))),
    };
    let select = columns.iter().map(|c| quote_ident(&c.name)).collect::<Vec<_>>().join(", ");
    let copy = |filter: &str| format!("COPY (SELECT {select} FROM {from}{filter}) TO STDOUT (FORMAT binary)");
    let mut source =
        Source { url: url.clone(), columns, statements: vec![copy("")], snapshot: None, _coordinator: None };
    if splittable && url.workers > 1 {
        client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .await
            .map_err(|e| pg_error(&url.shown, "starting a snapshot", e))?;
        let table = url.table.as_deref().unwrap_or_default();
        let row = client
            .query_one(
                "SELECT pg_export_snapshot(), (pg_relation_size(to_regclass($1)) / current_setting('block_size')::int8)::int8",
                &[&table],
            )
            .await
            .map_err(|e| pg_error(&url.shown, "exporting a snapshot", e))?;
        let (snapshot, pages): (String, i64) = (row.get(0), row.get(1));
        if !snapshot.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
            return Err(Error::operational(format!("{}: unexpected snapshot id {snapshot:?}", url.shown)));
        }
        let per = (pages as u64).div_ceil(url.workers as u64).max(1);
        source.statements = (0..url.workers as u64)
            .map(|i| {
                let low = format!(" WHERE ctid >= '({},0)'::tid", i * per);
                if i + 1 == url.workers as u64 {
                    copy(&low)
                } else {
                    copy(&format!("{low} AND ctid < '({},0)'::tid", (i + 1) * per))
                }
            })
            .collect();
        source.snapshot = Some(snapshot);
        source._coordinator = Some(client);
    }
    let schema = binary::arrow_schema(&source.columns);
    let source = Arc::new(source);
    let partitions = (0..source.statements.len())
        .map(|index| {
            Arc::new(Partition { source: source.clone(), index, schema: schema.clone() }) as Arc<dyn PartitionStream>
        })
        .collect();
    Ok((schema, partitions))
}

/// A table over PostgreSQL rows (`SELECT * FROM 'postgresql://...'`).
pub async fn table(url: &PgUrl) -> Result<StreamingTable> {
    let (schema, partitions) = open_source(url).await?;
    Ok(StreamingTable::try_new(schema, partitions)?)
}

#[derive(Debug)]
struct Partition {
    source: Arc<Source>,
    index: usize,
    schema: SchemaRef,
}

impl PartitionStream for Partition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (tx, rx) = mpsc::channel(2);
        let source = self.source.clone();
        let index = self.index;
        tokio::spawn(async move {
            if let Err(e) = read_partition(&source, index, &tx).await {
                let _ = tx.send(Err(e.into())).await;
            }
        });
        crate::table::channel_stream(self.schema.clone(), rx)
    }
}

async fn read_partition(
    source: &Source,
    index: usize,
    tx: &mpsc::Sender<datafusion::common::Result<RecordBatch>>,
) -> Result<()> {
    let url = &source.url;
    let client = url.connect().await?;
    if let Some(snapshot) = &source.snapshot {
        // The id came from pg_export_snapshot() and was checked to be hex digits and dashes.
        client
            .batch_execute(&format!(
                "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '{snapshot}'"
            ))
            .await
            .map_err(|e| pg_error(&url.shown, "joining the snapshot", e))?;
    }
    let stream = client
        .copy_out(source.statements[index].as_str())
        .await
        .map_err(|e| pg_error(&url.shown, "starting COPY", e))?;
    futures::pin_mut!(stream);
    let mut decoder = binary::Decoder::new(source.columns.clone(), url.batch_rows);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| pg_error(&url.shown, "reading COPY data", e))?;
        for batch in decoder.push(&chunk)? {
            if tx.send(Ok(batch)).await.is_err() {
                return Ok(()); // the query stopped reading
            }
        }
    }
    if let Some(batch) = decoder.finish()? {
        let _ = tx.send(Ok(batch)).await;
    }
    Ok(())
}

/// Writes the rows of `stream` into the table of `url` (created from
/// `schema` if it does not exist) in one transaction; returns the rows.
pub async fn write(url: &PgUrl, schema: &SchemaRef, mut stream: SendableRecordBatchStream) -> Result<u64> {
    let table = url
        .table
        .as_deref()
        .ok_or_else(|| Error::programming(format!("{}: say which table to write with ?table=NAME", url.shown)))?;
    let client = url.connect().await?;
    let fail = |doing: &'static str| move |e| pg_error(&url.shown, doing, e);
    client.batch_execute("BEGIN").await.map_err(fail("starting a transaction"))?;
    let exists: Option<String> =
        client.query_one("SELECT to_regclass($1)::text", &[&table]).await.map_err(fail("looking up the table"))?.get(0);
    let (quoted, kinds) = match exists {
        Some(_) => {
            let (quoted, columns) = table_columns(&client, url, table).await?;
            if columns.len() != schema.fields().len() {
                return Err(Error::programming(format!(
                    "{}: table {quoted} has {} columns, the rows have {}",
                    url.shown,
                    columns.len(),
                    schema.fields().len()
                )));
            }
            (quoted, columns.into_iter().map(|c| c.kind).collect::<Vec<_>>())
        }
        None => {
            let quoted: String = client
                .query_one(
                    "SELECT array_to_string(ARRAY(SELECT quote_ident(p) FROM unnest(parse_ident($1)) AS p), '.')",
                    &[&table],
                )
                .await
                .map_err(fail("parsing the table name"))?
                .get(0);
            let mut kinds = Vec::new();
            let mut definitions = Vec::new();
            for field in schema.fields() {
                let (kind, sql_type) = PgKind::for_arrow(field.data_type()).ok_or_else(|| {
                    Error::new(
                        ErrorKind::NotSupported,
                        format!(
                            "{}: column '{}' of type {} has no PostgreSQL equivalent; cast it",
                            url.shown,
                            field.name(),
                            field.data_type()
                        ),
                    )
                })?;
                let not_null = if field.is_nullable() { "" } else { " NOT NULL" };
                definitions.push(format!("{} {sql_type}{not_null}", quote_ident(field.name())));
                kinds.push(kind);
            }
            client
                .batch_execute(&format!("CREATE TABLE {quoted} ({})", definitions.join(", ")))
                .await
                .map_err(fail("creating the table"))?;
            (quoted, kinds)
        }
    };
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let sink = client
        .copy_in::<_, bytes::Bytes>(&format!("COPY {quoted} FROM STDIN (FORMAT binary)"))
        .await
        .map_err(fail("starting COPY"))?;
    futures::pin_mut!(sink);
    let mut buffer = BytesMut::with_capacity(SEND_CHUNK * 2);
    binary::write_header(&mut buffer);
    let options = CastOptions { safe: false, ..Default::default() };
    let cast_schema = binary::arrow_schema(
        &kinds.iter().zip(&names).map(|(k, n)| PgColumn { name: n.clone(), kind: k.clone() }).collect::<Vec<_>>(),
    );
    let mut rows = 0u64;
    while let Some(batch) = stream.next().await {
        let batch = batch?;
        rows += batch.num_rows() as u64;
        let columns = batch
            .columns()
            .iter()
            .zip(&kinds)
            .zip(&names)
            .map(|((c, k), name)| {
                cast_with_options(c, &k.arrow_type(), &options)
                    .map_err(|e| Error::data(format!("{}: column '{name}' does not fit {quoted}: {e}", url.shown)))
            })
            .collect::<Result<Vec<_>>>()?;
        let cast = RecordBatch::try_new(cast_schema.clone(), columns)?;
        binary::encode_batch(&names, &kinds, &cast, &mut buffer)?;
        if buffer.len() >= SEND_CHUNK {
            sink.as_mut().send(buffer.split().freeze()).await.map_err(fail("sending COPY data"))?;
        }
    }
    binary::write_trailer(&mut buffer);
    sink.as_mut().send(buffer.split().freeze()).await.map_err(fail("sending COPY data"))?;
    let copied = sink.finish().await.map_err(fail("finishing COPY"))?;
    client.batch_execute("COMMIT").await.map_err(fail("committing"))?;
    if copied != rows {
        return Err(Error::operational(format!("{}: {rows} rows were sent but PostgreSQL stored {copied}", url.shown)));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_parameters_are_percent_decoded_and_bad_escapes_refused() {
        assert_eq!(percent_decode("select%20*%20from%20%22T%22").unwrap(), "select * from \"T\"");
        assert_eq!(percent_decode("caf%C3%A9").unwrap(), "café");
        for bad in ["a%2", "a%zz", "%", "%é1"] {
            let err = percent_decode(bad).unwrap_err().to_string();
            assert!(err.contains("bad percent-escape"), "{bad}: {err}");
        }
        assert!(percent_decode("%FF").unwrap_err().to_string().contains("not UTF-8"));
    }
}
