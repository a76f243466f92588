//! The Flight SQL calls a database answers: statements (`GetFlightInfo` then
//! `DoGet`), updates and bulk ingest (`DoPut`), the catalog (`GetTables`, ...),
//! the handshake and the server's description (`GetSqlInfo`). Each statement
//! runs on a connection of its own, committing on its own; the engine works on
//! blocking threads, never on the runtime's.

use crate::catalog;
use crate::tickets::Tickets;
use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::error::FlightError;
use arrow_flight::flight_service_server::FlightService;
use arrow_flight::sql::metadata::{SqlInfoData, SqlInfoDataBuilder};
use arrow_flight::sql::server::{FlightSqlService, PeekableFlightDataStream};
use arrow_flight::sql::{
    Any, CommandGetCatalogs, CommandGetDbSchemas, CommandGetSqlInfo, CommandGetTableTypes, CommandGetTables,
    CommandStatementIngest, CommandStatementQuery, CommandStatementUpdate, ProstMessageExt, SqlInfo,
    TicketStatementQuery,
};
use arrow_flight::{FlightDescriptor, FlightEndpoint, FlightInfo, HandshakeRequest, HandshakeResponse, Ticket};
use futures::{Stream, TryStreamExt};
use prost::Message;
use std::pin::Pin;
use std::sync::Arc;
use swingdb::arrow::datatypes::Schema;
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::{Database, ErrorKind, Token};
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status, Streaming};

/// A core error as the gRPC status a client sees (its message kept whole).
pub(crate) fn status(err: swingdb::Error) -> Status {
    let message = err.message().to_string();
    match err.kind() {
        ErrorKind::Programming | ErrorKind::Data => Status::invalid_argument(message),
        ErrorKind::Integrity => Status::failed_precondition(message),
        ErrorKind::Conflict => Status::aborted(message),
        ErrorKind::Corruption => Status::data_loss(message),
        ErrorKind::NotSupported => Status::unimplemented(message),
        ErrorKind::Interrupted => Status::cancelled(message),
        ErrorKind::Operational => Status::unavailable(message),
        _ => Status::internal(message),
    }
}

/// A database served over Flight SQL.
pub struct SwingdbFlight {
    db: Database,
    token: Token,
    tickets: Arc<Tickets>,
    info: SqlInfoData,
}

impl SwingdbFlight {
    /// Serves `db` (opened read-only when `read_only`) to callers holding `token`.
    pub fn new(db: Database, read_only: bool, token: Token) -> Self {
        let mut info = SqlInfoDataBuilder::new();
        info.append(SqlInfo::FlightSqlServerName, "swingdb");
        info.append(SqlInfo::FlightSqlServerVersion, env!("CARGO_PKG_VERSION"));
        info.append(SqlInfo::FlightSqlServerArrowVersion, "59");
        info.append(SqlInfo::FlightSqlServerReadOnly, read_only);
        info.append(SqlInfo::FlightSqlServerBulkIngestion, true);
        let info = info.build().expect("the server's SqlInfo is well-formed");
        Self { db, token, tickets: Arc::default(), info }
    }

    /// Runs `sql` on a new connection, on a blocking thread.
    async fn run(&self, sql: String) -> Result<swingdb::QueryResult, Status> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || db.connect().and_then(|con| con.execute(&sql, &[])))
            .await
            .map_err(|e| Status::internal(format!("the statement's thread failed: {e}")))?
            .map_err(status)
    }
}

/// A stream of `result`'s batches, cut into messages (see
/// [`swingdb::cut_into_messages`]), read on a blocking thread as the client
/// takes them (two batches ahead at most).
fn batches(mut result: swingdb::QueryResult) -> impl Stream<Item = Result<RecordBatch, FlightError>> + Send {
    let (send, receive) = tokio::sync::mpsc::channel(2);
    tokio::task::spawn_blocking(move || loop {
        // A panic (a bug) becomes an error: ending the stream instead would
        // hand the client a shortened result as if it were whole.
        let next =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| result.next_batch())).unwrap_or_else(|_| {
                Err(swingdb::Error::internal("internal error (please report): panic while computing a result"))
            });
        let end = !matches!(next, Ok(Some(_)));
        let items = match next {
            Ok(Some(batch)) => swingdb::cut_into_messages(&batch).into_iter().map(Ok).collect(),
            Ok(None) => Vec::new(),
            Err(e) => vec![Err(FlightError::Tonic(Box::new(status(e))))],
        };
        // A client that went away closes the channel: the statement stops here.
        for item in items {
            if send.blocking_send(item).is_err() {
                return;
            }
        }
        if end {
            return;
        }
    });
    futures::stream::unfold(receive, |mut receive| async move { receive.recv().await.map(|item| (item, receive)) })
}

type DoGetStream = <SwingdbFlight as FlightService>::DoGetStream;

/// What a `GetFlightInfo` answers: the rows' schema and one endpoint whose
/// ticket is `ticket` (which `DoGet` hands back), for `descriptor`.
fn flight_info(schema: &Schema, ticket: Any, descriptor: FlightDescriptor) -> Result<Response<FlightInfo>, Status> {
    let endpoint = FlightEndpoint::new().with_ticket(Ticket::new(ticket.encode_to_vec()));
    let info = FlightInfo::new()
        .try_with_schema(schema)
        .map_err(|e| Status::internal(format!("cannot describe the result: {e}")))?
        .with_endpoint(endpoint)
        .with_descriptor(descriptor);
    Ok(Response::new(info))
}

/// `batch` as the whole answer of a `DoGet`.
fn one_batch(batch: RecordBatch) -> Response<DoGetStream> {
    let stream = FlightDataEncoderBuilder::new()
        .with_schema(batch.schema())
        .build(futures::stream::once(async { Ok(batch) }))
        .map_err(Status::from);
    Response::new(Box::pin(stream))
}

#[tonic::async_trait]
impl FlightSqlService for SwingdbFlight {
    type FlightService = SwingdbFlight;

    async fn do_handshake(
        &self,
        request: Request<Streaming<HandshakeRequest>>,
    ) -> Result<Response<Pin<Box<dyn Stream<Item = Result<HandshakeResponse, Status>> + Send>>>, Status> {
        self.token.check_handshake(request.metadata())?;
        let reply = HandshakeResponse { protocol_version: 0, payload: self.token.as_str().as_bytes().to_vec().into() };
        let mut response: Response<Pin<Box<dyn Stream<Item = _> + Send>>> =
            Response::new(Box::pin(futures::stream::iter([Ok(reply)])));
        let bearer = MetadataValue::try_from(format!("Bearer {}", self.token.as_str()))
            .map_err(|_| Status::internal("the token is not a valid header"))?;
        response.metadata_mut().insert("authorization", bearer);
        Ok(response)
    }

    async fn get_flight_info_statement(
        &self,
        query: CommandStatementQuery,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        if query.transaction_id.is_some() {
            return Err(Status::unimplemented("transactions are not served yet: each statement commits on its own"));
        }
        let result = self.run(query.query).await?;
        let schema = result.schema();
        let handle = self.tickets.park(result).map_err(|e| Status::internal(e.to_string()))?;
        let ticket = TicketStatementQuery { statement_handle: handle.into() };
        flight_info(&schema, ticket.as_any(), request.into_inner())
    }

    async fn do_get_statement(
        &self,
        ticket: TicketStatementQuery,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        let result = self.tickets.take(&ticket.statement_handle).ok_or_else(|| {
            Status::not_found(
                "this ticket is unknown, was fetched already, or expired (10 minutes); run the statement again",
            )
        })?;
        let schema = result.schema();
        // `batches` cut the batches by their own bytes (Flight's encoder
        // would cut batches sliced from stored segments into tiny messages).
        let stream = FlightDataEncoderBuilder::new()
            .with_schema(schema)
            .with_max_flight_data_size(usize::MAX)
            .build(batches(result))
            .map_err(Status::from);
        Ok(Response::new(Box::pin(stream)))
    }

    async fn do_put_statement_update(
        &self,
        update: CommandStatementUpdate,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        self.token.check(request.metadata())?;
        if update.transaction_id.is_some() {
            return Err(Status::unimplemented("transactions are not served yet: each statement commits on its own"));
        }
        let result = self.run(update.query).await?;
        Ok(result.rows_affected().map_or(-1, |n| n as i64))
    }

    async fn do_put_statement_ingest(
        &self,
        command: CommandStatementIngest,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        self.token.check(request.metadata())?;
        crate::ingest::ingest(&self.db, command, request.into_inner()).await
    }

    async fn get_flight_info_sql_info(
        &self,
        query: CommandGetSqlInfo,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        let schema = query.clone().into_builder(&self.info).schema();
        flight_info(&schema, query.as_any(), request.into_inner())
    }

    async fn do_get_sql_info(
        &self,
        query: CommandGetSqlInfo,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        let batch = query.into_builder(&self.info).build().map_err(|e| Status::internal(e.to_string()))?;
        Ok(one_batch(batch))
    }

    async fn get_flight_info_catalogs(
        &self,
        query: CommandGetCatalogs,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&query.into_builder().schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_catalogs(
        &self,
        query: CommandGetCatalogs,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        Ok(one_batch(catalog::catalogs(query)?))
    }

    async fn get_flight_info_schemas(
        &self,
        query: CommandGetDbSchemas,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&query.clone().into_builder().schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_schemas(
        &self,
        query: CommandGetDbSchemas,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        Ok(one_batch(catalog::schemas(query)?))
    }

    async fn get_flight_info_table_types(
        &self,
        query: CommandGetTableTypes,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&query.into_builder().schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_table_types(
        &self,
        query: CommandGetTableTypes,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        Ok(one_batch(catalog::table_types(query)?))
    }

    async fn get_flight_info_tables(
        &self,
        query: CommandGetTables,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&query.clone().into_builder().schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_tables(
        &self,
        query: CommandGetTables,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        let db = self.db.clone();
        let batch = tokio::task::spawn_blocking(move || catalog::tables(&db, query))
            .await
            .map_err(|e| Status::internal(format!("the catalog's thread failed: {e}")))??;
        Ok(one_batch(batch))
    }

    async fn register_sql_info(&self, _id: i32, _result: &SqlInfo) {}
}
