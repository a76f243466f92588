//! The Flight SQL calls a database answers: statements (`GetFlightInfo` then
//! `DoGet`), updates and bulk ingest (`DoPut`), prepared statements with
//! parameters, transactions across statements, cancelling a query, the
//! catalog (`GetTables`, `GetXdbcTypeInfo`, ...), the handshake and the
//! server's description (`GetSqlInfo`). A statement runs on its
//! transaction's connection, else on a connection of its own, committing on
//! its own (kept between calls: see `pool.rs`, `statements.rs`); the engine
//! works on blocking threads, never on the runtime's.

use crate::answers::{flight_info, ipc_schema, one_batch, DoGetStream};
use crate::catalog;
use crate::pool::Pool;
use crate::prepared::{parameter_sets, PreparedStatements, Statement};
use crate::statements::{self, blocking, InterruptOnDrop};
use crate::status::status;
use crate::tickets::{batches, Limits, Shared, Tickets};
use crate::transactions::Transactions;
use crate::uploads::read_upload;
use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::flight_service_server::FlightService;
use arrow_flight::sql::metadata::{SqlInfoData, SqlInfoDataBuilder};
use arrow_flight::sql::server::{FlightSqlService, PeekableFlightDataStream};
use arrow_flight::sql::{
    ActionBeginTransactionRequest, ActionBeginTransactionResult, ActionCancelQueryRequest, ActionCancelQueryResult,
    ActionClosePreparedStatementRequest, ActionCreatePreparedStatementRequest, ActionCreatePreparedStatementResult,
    ActionEndTransactionRequest, CommandGetCatalogs, CommandGetCrossReference, CommandGetDbSchemas,
    CommandGetExportedKeys, CommandGetImportedKeys, CommandGetPrimaryKeys, CommandGetSqlInfo, CommandGetTableTypes,
    CommandGetTables, CommandGetXdbcTypeInfo, CommandPreparedStatementQuery, CommandPreparedStatementUpdate,
    CommandStatementIngest, CommandStatementQuery, CommandStatementUpdate, DoPutPreparedStatementResult,
    EndTransaction, ProstMessageExt, SqlInfo, SqlSupportedTransaction, TicketStatementQuery,
};
use arrow_flight::{
    Action, ActionType, CancelFlightInfoRequest, CancelFlightInfoResult, FlightDescriptor, FlightEndpoint, FlightInfo,
    HandshakeRequest, HandshakeResponse, Ticket,
};
use futures::{Stream, TryStreamExt};
use prost::Message;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use swingdb::arrow::record_batch::RecordBatch;
use swingdb::{Connection, Database};
use swingdb_pipe::net::Token;
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status, Streaming};

/// The action that cancels a query by its `FlightInfo` (Flight's own,
/// which arrow-flight's Flight SQL server leaves to `do_action_fallback`).
const CANCEL_FLIGHT_INFO: &str = "CancelFlightInfo";

/// `CancelQuery`'s answer that the query was cancelled (`CANCEL_RESULT_CANCELLED`;
/// arrow-flight does not export its enum).
const CANCEL_RESULT_CANCELLED: i32 = 1;

/// Pieces (one message each) a query computes before its `GetFlightInfo`
/// answers when it may be offered as several endpoints: a result that ends
/// within them is one endpoint, a longer one several.
const READ_AHEAD: usize = 2;

/// A database served over Flight SQL.
pub struct SwingdbFlight {
    db: Database,
    token: Token,
    /// The endpoints a long unordered result is offered as.
    endpoints: usize,
    tickets: Arc<Tickets>,
    /// The connections of statements outside transactions.
    pool: Arc<Pool>,
    transactions: Arc<Transactions>,
    prepared: Arc<PreparedStatements>,
    info: SqlInfoData,
}

impl SwingdbFlight {
    /// Serves `db` (opened read-only when `read_only`) to callers holding
    /// `token`, a long unordered result as `endpoints` endpoints, results
    /// not fetched to their end held to `limits`.
    pub fn new(db: Database, read_only: bool, token: Token, endpoints: usize, limits: Limits) -> Self {
        let mut info = SqlInfoDataBuilder::new();
        info.append(SqlInfo::FlightSqlServerName, "swingdb");
        info.append(SqlInfo::FlightSqlServerVersion, env!("CARGO_PKG_VERSION"));
        info.append(SqlInfo::FlightSqlServerArrowVersion, "59");
        info.append(SqlInfo::FlightSqlServerReadOnly, read_only);
        info.append(SqlInfo::FlightSqlServerSql, true);
        info.append(SqlInfo::FlightSqlServerBulkIngestion, true);
        info.append(SqlInfo::FlightSqlServerIngestTransactionsSupported, true);
        info.append(SqlInfo::FlightSqlServerTransaction, SqlSupportedTransaction::Transaction as i32);
        info.append(SqlInfo::FlightSqlServerCancel, true);
        info.append(SqlInfo::SqlTransactionsSupported, true);
        info.append(SqlInfo::SqlIdentifierQuoteChar, "\"");
        info.append(
            SqlInfo::FlightSqlServerStatementTimeout,
            crate::prepared::IDLE_LIFETIME.as_millis().min(i32::MAX as u128) as i32,
        );
        info.append(
            SqlInfo::FlightSqlServerTransactionTimeout,
            crate::transactions::IDLE_LIFETIME.as_millis().min(i32::MAX as u128) as i32,
        );
        let info = info.build().expect("the server's SqlInfo is well-formed");
        Self {
            pool: Arc::new(Pool::new(db.clone())),
            db,
            token,
            endpoints: endpoints.max(1),
            tickets: Arc::new(Tickets::new(limits)),
            transactions: Arc::default(),
            prepared: Arc::default(),
            info,
        }
    }

    /// What drops the results nobody fetched in time, and the newest ones
    /// past the budgets, four times a second for as long as it runs (see
    /// [`Limits`]): run it beside the server.
    pub fn expiry(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let tickets = self.tickets.clone();
        async move {
            let mut tick = tokio::time::interval(std::time::Duration::from_millis(250));
            loop {
                tick.tick().await;
                let tickets = tickets.clone();
                // Dropping a result may wait for its plan: not on the runtime's threads.
                let _ = tokio::task::spawn_blocking(move || {
                    tickets.expire();
                    tickets.shed();
                })
                .await;
            }
        }
    }

    /// Runs the query `sql` on `con` once per parameter set of `bound` and
    /// parks its rows for their `DoGet`s; the `GetFlightInfo` answer for
    /// `descriptor`. `ordered` says whether its rows come in an order it
    /// asks for, if that is known. `client` is the network connection that
    /// asked (whose unfinished results are held to the server's limits).
    async fn query(
        &self,
        con: Arc<Connection>,
        sql: String,
        bound: Vec<RecordBatch>,
        ordered: Option<bool>,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        let client = request.remote_addr();
        let descriptor = request.into_inner();
        let (tickets, pool) = (self.tickets.clone(), self.pool.clone());
        if let Some(rows) = answer_here(&tickets, &pool, &con, &sql, &bound, client)? {
            return self.flight_info(rows, 1, client, descriptor);
        }
        let guard = InterruptOnDrop::new(&con);
        let endpoints = self.endpoints;
        let (rows, endpoints) = blocking("statement", move || {
            tickets.admit(client)?;
            let sets = parameter_sets(&bound)?;
            let results = statements::query(&con, &sql, &sets);
            pool.release(&con);
            let results = results?;
            let rows = Shared::new(results, con.clone());
            // Several endpoints only where the order does not matter, and
            // only for rows worth fetching in parallel (which computes the
            // first ones now; with one endpoint, all are computed as the
            // client fetches them).
            let several = endpoints > 1
                && !ordered.unwrap_or_else(|| con.statement_info(&sql).is_ok_and(|info| info.ordered))
                && rows.read_ahead(READ_AHEAD).map_err(status)?;
            Ok((rows, if several { endpoints } else { 1 }))
        })
        .await?;
        guard.disarm();
        self.flight_info(rows, endpoints, client, descriptor)
    }

    /// Parks `rows` for their `DoGet`s from `endpoints` endpoints; the
    /// `GetFlightInfo` answer for `descriptor` naming their tickets.
    fn flight_info(
        &self,
        rows: Shared,
        endpoints: usize,
        client: Option<SocketAddr>,
        descriptor: FlightDescriptor,
    ) -> Result<Response<FlightInfo>, Status> {
        let schema = rows.schema();
        let tickets = self.tickets.park(rows, endpoints, client)?;
        let mut info = FlightInfo::new()
            .try_with_schema(&schema)
            .map_err(|e| Status::internal(format!("cannot describe the result: {e}")))?
            .with_descriptor(descriptor)
            .with_ordered(endpoints == 1);
        for ticket in tickets {
            let ticket = TicketStatementQuery { statement_handle: ticket.into() };
            info = info.with_endpoint(FlightEndpoint::new().with_ticket(Ticket::new(ticket.as_any().encode_to_vec())));
        }
        Ok(Response::new(info))
    }

    /// Runs the statement `sql` on `con` once per parameter set of `bound`;
    /// the rows it changed.
    async fn update(&self, con: Arc<Connection>, sql: String, bound: Vec<RecordBatch>) -> Result<i64, Status> {
        let guard = InterruptOnDrop::new(&con);
        let pool = self.pool.clone();
        let changed = blocking("statement", move || {
            let sets = parameter_sets(&bound)?;
            let changed = statements::update(&con, &sql, &sets);
            pool.release(&con);
            changed
        })
        .await?;
        guard.disarm();
        Ok(changed)
    }

    /// The connection of the transaction `transaction`, else one of the
    /// pool's (an idle kept one is taken without leaving the runtime's thread).
    async fn connection(&self, transaction: Option<Vec<u8>>) -> Result<Arc<Connection>, Status> {
        if transaction.is_none() {
            if let Some(con) = self.pool.idle() {
                return Ok(con);
            }
        }
        let (pool, transactions) = (self.pool.clone(), self.transactions.clone());
        blocking("connection", move || statements::connection(&pool, &transactions, transaction.as_deref())).await
    }

    /// The connection the prepared `statement` runs on when `client` runs
    /// it (see `transactions.rs`).
    async fn prepared_connection(
        &self,
        statement: &Statement,
        client: Option<SocketAddr>,
    ) -> Result<Arc<Connection>, Status> {
        let Some(id) = &statement.transaction else { return self.connection(None).await };
        match self.transactions.for_prepared(id, client)? {
            Some(con) => Ok(con),
            None => self.connection(None).await,
        }
    }
}

/// The rows of the query `sql` on `con` with `bound`'s one parameter set,
/// when the engine is not needed to answer it (a point read by key; see
/// [`Connection::execute_here`]): run where the call is served, for the
/// hand-off to a blocking thread and back costs more than such a query.
/// `None`, with nothing run, when it is to run on a blocking thread.
fn answer_here(
    tickets: &Tickets,
    pool: &Pool,
    con: &Arc<Connection>,
    sql: &str,
    bound: &[RecordBatch],
    client: Option<SocketAddr>,
) -> Result<Option<Shared>, Status> {
    // Several parameter sets are the engine's to run, and converting them
    // (up to MAX_PARAMETER_BYTES) is the blocking thread's work, done once.
    if bound.iter().filter(|b| b.num_columns() > 0).map(RecordBatch::num_rows).sum::<usize>() > 1 {
        return Ok(None);
    }
    let [set] = &parameter_sets(bound)?[..] else { return Ok(None) };
    tickets.admit_as_is(client)?;
    let answered = con.execute_here(sql, set);
    pool.release(con);
    Ok(answered.map_err(status)?.map(|result| Shared::new(vec![result], con.clone())))
}

/// A transaction id as a call carries it (none when empty).
fn transaction_of(id: Option<prost::bytes::Bytes>) -> Option<Vec<u8>> {
    id.filter(|id| !id.is_empty()).map(|id| id.to_vec())
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
        let con = self.connection(transaction_of(query.transaction_id)).await?;
        self.query(con, query.query, Vec::new(), None, request).await
    }

    async fn get_flight_info_prepared_statement(
        &self,
        query: CommandPreparedStatementQuery,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        let statement = self.prepared.get(&query.prepared_statement_handle)?;
        let con = self.prepared_connection(&statement, request.remote_addr()).await?;
        let Statement { sql, ordered, bound, .. } = statement;
        self.query(con, sql, bound, Some(ordered), request).await
    }

    async fn do_get_statement(
        &self,
        ticket: TicketStatementQuery,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        let shared = self.tickets.take(&ticket.statement_handle)?;
        // `batches` cut the batches by their own bytes (Flight's encoder
        // would cut batches sliced from stored segments into tiny messages).
        let stream = FlightDataEncoderBuilder::new()
            .with_schema(shared.schema())
            .with_max_flight_data_size(usize::MAX)
            .build(batches(shared))
            .map_err(Status::from);
        Ok(Response::new(Box::pin(stream)))
    }

    async fn do_put_statement_update(
        &self,
        update: CommandStatementUpdate,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        self.token.check(request.metadata())?;
        let con = self.connection(transaction_of(update.transaction_id)).await?;
        self.update(con, update.query, Vec::new()).await
    }

    async fn do_put_prepared_statement_query(
        &self,
        query: CommandPreparedStatementQuery,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<DoPutPreparedStatementResult, Status> {
        self.token.check(request.metadata())?;
        let handle = query.prepared_statement_handle;
        self.prepared.get(&handle)?;
        let bound = read_upload(request.into_inner(), crate::prepared::MAX_PARAMETER_BYTES, "parameters").await?;
        self.prepared.bind(&handle, bound)?;
        Ok(DoPutPreparedStatementResult { prepared_statement_handle: Some(handle) })
    }

    async fn do_put_prepared_statement_update(
        &self,
        update: CommandPreparedStatementUpdate,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        self.token.check(request.metadata())?;
        let statement = self.prepared.get(&update.prepared_statement_handle)?;
        let con = self.prepared_connection(&statement, request.remote_addr()).await?;
        let bound = read_upload(request.into_inner(), crate::prepared::MAX_PARAMETER_BYTES, "parameters").await?;
        self.update(con, statement.sql, bound).await
    }

    async fn do_put_statement_ingest(
        &self,
        command: CommandStatementIngest,
        request: Request<PeekableFlightDataStream>,
    ) -> Result<i64, Status> {
        self.token.check(request.metadata())?;
        let con = match transaction_of(command.transaction_id.clone()) {
            Some(id) => Some(self.transactions.connection(&id)?),
            None => None,
        };
        crate::ingest::ingest(&self.db, con, command, request.into_inner()).await
    }

    async fn do_action_create_prepared_statement(
        &self,
        query: ActionCreatePreparedStatementRequest,
        request: Request<Action>,
    ) -> Result<ActionCreatePreparedStatementResult, Status> {
        self.token.check(request.metadata())?;
        let client = request.remote_addr();
        let transaction = transaction_of(query.transaction_id);
        let con = self.connection(transaction.clone()).await?;
        let sql = query.query;
        let (statement, info) = blocking("statement", move || {
            let info = con.statement_info(&sql).map_err(status)?;
            Ok((Statement { sql, transaction, ordered: info.ordered, bound: Vec::new() }, info))
        })
        .await?;
        let handle = self.prepared.create(statement, client)?;
        Ok(ActionCreatePreparedStatementResult {
            prepared_statement_handle: handle.into(),
            dataset_schema: ipc_schema(info.columns.as_deref())?,
            parameter_schema: ipc_schema(info.parameters.as_deref())?,
        })
    }

    async fn do_action_close_prepared_statement(
        &self,
        query: ActionClosePreparedStatementRequest,
        request: Request<Action>,
    ) -> Result<(), Status> {
        self.token.check(request.metadata())?;
        self.prepared.close(&query.prepared_statement_handle);
        Ok(())
    }

    async fn do_action_begin_transaction(
        &self,
        _query: ActionBeginTransactionRequest,
        request: Request<Action>,
    ) -> Result<ActionBeginTransactionResult, Status> {
        self.token.check(request.metadata())?;
        let (db, transactions, client) = (self.db.clone(), self.transactions.clone(), request.remote_addr());
        let id = blocking("transaction", move || transactions.begin(&db, client)).await?;
        Ok(ActionBeginTransactionResult { transaction_id: id.into() })
    }

    async fn do_action_end_transaction(
        &self,
        query: ActionEndTransactionRequest,
        request: Request<Action>,
    ) -> Result<(), Status> {
        self.token.check(request.metadata())?;
        let commit = match EndTransaction::try_from(query.action) {
            Ok(EndTransaction::Commit) => true,
            Ok(EndTransaction::Rollback) => false,
            _ => return Err(Status::invalid_argument("end a transaction with COMMIT or ROLLBACK")),
        };
        let transactions = self.transactions.clone();
        blocking("transaction", move || transactions.end(&query.transaction_id, commit)).await
    }

    async fn do_action_cancel_query(
        &self,
        query: ActionCancelQueryRequest,
        request: Request<Action>,
    ) -> Result<ActionCancelQueryResult, Status> {
        self.token.check(request.metadata())?;
        let info = FlightInfo::decode(&*query.info)
            .map_err(|e| Status::invalid_argument(format!("the FlightInfo to cancel is malformed: {e}")))?;
        self.tickets.cancel_query(&info)?;
        Ok(ActionCancelQueryResult { result: CANCEL_RESULT_CANCELLED })
    }

    async fn do_action_fallback(
        &self,
        request: Request<Action>,
    ) -> Result<Response<<Self as FlightService>::DoActionStream>, Status> {
        self.token.check(request.metadata())?;
        if request.get_ref().r#type != CANCEL_FLIGHT_INFO {
            return Err(Status::invalid_argument(format!("unknown action '{}'", request.get_ref().r#type)));
        }
        let cancel = CancelFlightInfoRequest::decode(&*request.get_ref().body)
            .map_err(|e| Status::invalid_argument(format!("the CancelFlightInfo request is malformed: {e}")))?;
        let info =
            cancel.info.ok_or_else(|| Status::invalid_argument("the CancelFlightInfo request has no FlightInfo"))?;
        let result = CancelFlightInfoResult { status: self.tickets.cancel_query(&info)? as i32 };
        let body = arrow_flight::Result { body: result.encode_to_vec().into() };
        Ok(Response::new(Box::pin(futures::stream::iter([Ok(body)]))))
    }

    async fn list_custom_actions(&self) -> Option<Vec<Result<ActionType, Status>>> {
        Some(vec![Ok(ActionType {
            r#type: CANCEL_FLIGHT_INFO.into(),
            description: "Cancel a query: drop its waiting result or interrupt its fetch".into(),
        })])
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

    async fn get_flight_info_xdbc_type_info(
        &self,
        query: CommandGetXdbcTypeInfo,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&query.into_builder(catalog::xdbc_types()).schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_xdbc_type_info(
        &self,
        query: CommandGetXdbcTypeInfo,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        let batch = query.into_builder(catalog::xdbc_types()).build().map_err(|e| Status::internal(e.to_string()))?;
        Ok(one_batch(batch))
    }

    async fn get_flight_info_primary_keys(
        &self,
        query: CommandGetPrimaryKeys,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&catalog::primary_keys_schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_primary_keys(
        &self,
        query: CommandGetPrimaryKeys,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        let db = self.db.clone();
        Ok(one_batch(blocking("catalog", move || catalog::primary_keys(&db, query)).await?))
    }

    async fn get_flight_info_exported_keys(
        &self,
        query: CommandGetExportedKeys,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&catalog::foreign_keys_schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_exported_keys(
        &self,
        _query: CommandGetExportedKeys,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        Ok(one_batch(catalog::no_foreign_keys()))
    }

    async fn get_flight_info_imported_keys(
        &self,
        query: CommandGetImportedKeys,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&catalog::foreign_keys_schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_imported_keys(
        &self,
        _query: CommandGetImportedKeys,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        Ok(one_batch(catalog::no_foreign_keys()))
    }

    async fn get_flight_info_cross_reference(
        &self,
        query: CommandGetCrossReference,
        request: Request<FlightDescriptor>,
    ) -> Result<Response<FlightInfo>, Status> {
        self.token.check(request.metadata())?;
        flight_info(&catalog::foreign_keys_schema(), query.as_any(), request.into_inner())
    }

    async fn do_get_cross_reference(
        &self,
        _query: CommandGetCrossReference,
        request: Request<Ticket>,
    ) -> Result<Response<DoGetStream>, Status> {
        self.token.check(request.metadata())?;
        Ok(one_batch(catalog::no_foreign_keys()))
    }

    async fn register_sql_info(&self, _id: i32, _result: &SqlInfo) {}
}
