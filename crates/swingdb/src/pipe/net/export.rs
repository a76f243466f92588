//! The exporting end of a pipe across hosts: [`Exporter`], a Flight service
//! for one pipe, and [`NetSink`], one of its streams.

use super::*;
use crate::error::ErrorKind;
use crate::pipe::wire;
use crate::storage::files::random_id;
use arrow_flight::encode::FlightDataEncoderBuilder;
use arrow_flight::error::FlightError;
use arrow_flight::flight_service_server::{FlightService, FlightServiceServer};
use arrow_flight::{
    Action, ActionType, Criteria, Empty, FlightDescriptor, FlightEndpoint, FlightInfo, HandshakeRequest,
    HandshakeResponse, PollInfo, PutResult, SchemaResult, Ticket,
};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::BatchCoalescer;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::writer::IpcWriteOptions;
use datafusion::arrow::ipc::CompressionType;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;
use tokio::sync::mpsc;
use tonic::{Request, Response, Status, Streaming};

/// Largest call the exporter takes (a claim, a ticket, an action).
const CALL_MESSAGE: usize = 64 << 10;

/// Batches a stream holds before its writer waits for the importer.
const STREAM_DEPTH: usize = 4;

/// Rows per Flight message that small batches are gathered into: each
/// message costs a few microseconds on both ends.
const MESSAGE_ROWS: usize = 32 * 1024;

/// How long a finished exporter lets its last answers (an abort's reason)
/// reach the importer before its service stops.
const LINGER: Duration = Duration::from_secs(2);

/// What a writer puts into a stream.
enum Piece {
    Batch(RecordBatch),
    /// The writer sent everything: the trailer may go out.
    End,
}

/// Where the transfer stands.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// No importer has claimed the pipe yet.
    Waiting,
    /// An importer claimed it; rows flow.
    Claimed,
    /// The importer confirmed this many rows (or a plain client got every stream).
    Done(u64),
    /// The importer gave up, for this reason.
    Refused(String),
    /// This side gave up, for this reason.
    Ended(String),
}

/// The streams of the claimed transfer.
struct State {
    phase: Phase,
    transfer: String,
    confirm: bool,
    verify: bool,
    options: IpcWriteOptions,
    senders: Vec<mpsc::Sender<Piece>>,
    receivers: Vec<Option<mpsc::Receiver<Piece>>>,
    trailers: Vec<Option<Trailer>>,
}

struct Shared {
    name: String,
    token: Token,
    schema: SchemaRef,
    url: PipeUrl,
    state: Mutex<State>,
    changed: Condvar,
}

/// The exporter of a pipe across hosts: listens on the URL's address until an
/// importer claims the pipe, then serves its streams.
pub struct Exporter {
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Exporter {
    /// Listens on `url`'s address for an importer of rows shaped `schema` and
    /// waits (up to the URL's timeout) until one claims the pipe.
    pub fn open(url: &PipeUrl, schema: &SchemaRef) -> Result<Self> {
        let address = url.address.clone().ok_or_else(|| Error::internal("a pipe across hosts has an address"))?;
        let shared = Arc::new(Shared {
            name: url.name.clone(),
            token: token_for(url)?,
            schema: schema.clone(),
            url: url.clone(),
            state: Mutex::new(State {
                phase: Phase::Waiting,
                transfer: String::new(),
                confirm: false,
                verify: false,
                options: IpcWriteOptions::default(),
                senders: Vec::new(),
                receivers: Vec::new(),
                trailers: Vec::new(),
            }),
            changed: Condvar::new(),
        });
        let deadline = url.timeout.map(|t| Instant::now() + t);
        let listener = bind(&shared.name, &address, deadline)?;
        let (shutdown, stop) = tokio::sync::oneshot::channel();
        // The exporter takes only small calls (claims, tickets, actions): a
        // caller without the token cannot make it hold a large message.
        let service = FlightServiceServer::new(Service(shared.clone()))
            .max_decoding_message_size(CALL_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
        let mut builder = tonic::transport::Server::builder();
        if let Some(identity) = identity(url)? {
            let mut tls = tonic::transport::ServerTlsConfig::new().identity(identity);
            if let Some(ca) = &url.tls_ca {
                tls = tls.client_ca_root(tonic::transport::Certificate::from_pem(pem(url, "tls_ca", ca)?));
            }
            builder = builder.tls_config(tls).map_err(|e| {
                Error::programming(format!("pipe '{}': the TLS certificate or key is not usable: {e}", url.name))
            })?;
        } else if url.tls_ca.is_some() {
            return Err(Error::programming(format!(
                "pipe '{}': an exporter with tls_ca= (mutual TLS) needs its own tls_cert= and tls_key=",
                url.name
            )));
        }
        let server = builder
            .initial_stream_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW)
            .max_frame_size(FRAME)
            .add_service(service)
            .serve_with_incoming_shutdown(incoming, async { drop(stop.await) });
        runtime().spawn(server);
        let exporter = Self { shared, shutdown: Some(shutdown) };
        exporter.wait(deadline, |phase| *phase != Phase::Waiting, || {
            Error::operational(format!(
                "pipe '{}': no importer arrived at {address} within {:.1} s; start the other side (or raise ?timeout=, in seconds)",
                exporter.shared.name,
                url.timeout.unwrap_or_default().as_secs_f64()
            ))
        })?;
        Ok(exporter)
    }

    /// The writers of the claimed transfer's streams.
    pub fn sinks(&self) -> Vec<NetSink> {
        let state = self.shared.state.lock().unwrap();
        state
            .senders
            .iter()
            .map(|tx| NetSink {
                shared: self.shared.clone(),
                tx: tx.clone(),
                rows: 0,
                gather: BatchCoalescer::new(self.shared.schema.clone(), MESSAGE_ROWS)
                    .with_biggest_coalesce_batch_size(Some(MESSAGE_ROWS / 2)),
            })
            .collect()
    }

    /// After every sink was closed: waits for the importer to confirm all
    /// `sent` rows; the rows transferred.
    pub fn finish(&self, sent: u64) -> Result<u64> {
        let deadline = self.shared.url.timeout.map(|t| Instant::now() + t);
        let phase = self.wait(
            deadline,
            |phase| *phase != Phase::Claimed,
            || wire::lost(&self.shared.name, "importer", std::io::ErrorKind::TimedOut.into()),
        )?;
        match phase {
            Phase::Done(rows) if rows == sent => Ok(rows),
            Phase::Done(rows) => Err(Error::operational(format!(
                "pipe '{}': the importer confirmed {rows} rows, but {sent} were sent",
                self.shared.name
            ))),
            other => Err(self.shared.failure(&other)),
        }
    }

    /// The error to report for `failure` (a stream that could not be
    /// written): the importer's own reason if it sent one.
    pub fn explain(&self, failure: Error) -> Error {
        if failure.kind() == ErrorKind::Interrupted {
            return failure;
        }
        let deadline = Some(Instant::now() + Duration::from_secs(1));
        match self.wait(deadline, |phase| matches!(phase, Phase::Refused(_)), || failure.clone()) {
            Ok(refused) => self.shared.failure(&refused),
            Err(e) => e,
        }
    }

    /// Gives up: every stream ends with `why`, which the importer reports.
    pub fn abort(&self, why: &str) {
        self.shared.end(why);
    }

    /// Ends every stream at once (from any thread): their waiting writes fail.
    pub fn end_streams(&self) {
        self.shared.end("the exporting statement was interrupted");
    }

    /// Waits until `until` holds for the phase (then returns it), failing
    /// with `late` at `deadline` and at once when the user stops.
    fn wait(
        &self,
        deadline: Option<Instant>,
        until: impl Fn(&Phase) -> bool,
        late: impl FnOnce() -> Error,
    ) -> Result<Phase> {
        let mut state = self.shared.state.lock().unwrap();
        loop {
            if until(&state.phase) {
                return Ok(state.phase.clone());
            }
            if crate::signal::stop_requested() {
                drop(state);
                self.shared.end("the exporter was interrupted");
                return Err(Error::new(
                    ErrorKind::Interrupted,
                    format!("pipe '{}': interrupted while waiting for the importer", self.shared.name),
                ));
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(late());
            }
            state = self.shared.changed.wait_timeout(state, TICK).unwrap().0;
        }
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.shared.end("the exporting statement ended before the transfer finished");
        if let Some(shutdown) = self.shutdown.take() {
            // The service stops taking calls after a grace that lets the
            // importer read why the streams ended.
            runtime().spawn(async move {
                tokio::time::sleep(LINGER).await;
                let _ = shutdown.send(());
            });
        }
    }
}

/// Binds `address`, retrying while another process holds it (an exporter
/// whose transfer has not ended) until `deadline`.
fn bind(name: &str, address: &str, deadline: Option<Instant>) -> Result<tokio::net::TcpListener> {
    let cannot = |e: std::io::Error| Error::io(format!("pipe '{name}': cannot listen on {address}"), e);
    let candidates: Vec<std::net::SocketAddr> =
        std::net::ToSocketAddrs::to_socket_addrs(address).map_err(cannot)?.collect();
    let first = *candidates.first().ok_or_else(|| cannot(std::io::ErrorKind::NotFound.into()))?;
    loop {
        let attempt = block(async {
            let socket =
                if first.is_ipv4() { tokio::net::TcpSocket::new_v4() } else { tokio::net::TcpSocket::new_v6() }?;
            socket.set_reuseaddr(true)?;
            socket.bind(first)?;
            socket.listen(64)
        });
        match attempt {
            Ok(listener) => return Ok(listener),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Error::operational(format!(
                        "pipe '{name}': {address} stayed in use by another process (another exporter?); \
                         use another port or wait for it to finish"
                    )));
                }
                if crate::signal::stop_requested() {
                    return Err(Error::new(ErrorKind::Interrupted, format!("pipe '{name}': interrupted")));
                }
                std::thread::sleep(TICK);
            }
            Err(e) => return Err(cannot(e)),
        }
    }
}

impl Shared {
    /// Ends the transfer from this side (unless it finished): every stream
    /// ends with `why`.
    fn end(&self, why: &str) {
        let mut state = self.state.lock().unwrap();
        if matches!(state.phase, Phase::Waiting | Phase::Claimed) {
            state.phase = Phase::Ended(why.to_string());
            state.senders.clear();
        }
        self.changed.notify_all();
    }

    /// The error of a transfer that ended in `phase`.
    fn failure(&self, phase: &Phase) -> Error {
        match phase {
            Phase::Refused(why) => Error::operational(format!("pipe '{}': the importer gave up: {why}", self.name)),
            Phase::Ended(why) => Error::operational(format!("pipe '{}': {why}", self.name)),
            _ => Error::internal("the transfer did not fail"),
        }
    }

    /// Claims the pipe for `claim` (sent as `descriptor`); the answer for the importer.
    fn claim(&self, claim: Claim, descriptor: FlightDescriptor) -> std::result::Result<FlightInfo, Status> {
        if claim.pipe != self.name {
            return Err(Status::not_found(format!("this address exports pipe '{}', not '{}'", self.name, claim.pipe)));
        }
        let mut state = self.state.lock().unwrap();
        if state.phase != Phase::Waiting {
            return Err(Status::unavailable(format!("pipe '{}' is taken by another importer", self.name)));
        }
        let n = streams(self.url.workers, claim.workers);
        let compression = self.url.compression.or(claim.compression);
        let kind = compression.map(|c| match c {
            Compression::Lz4 => CompressionType::LZ4_FRAME,
            Compression::Zstd => CompressionType::ZSTD,
        });
        state.options =
            IpcWriteOptions::default().try_with_compression(kind).map_err(|e| Status::internal(e.to_string()))?;
        state.transfer = format!("{}{}", random_id(), random_id());
        state.confirm = claim.confirm;
        state.verify = self.url.verify || claim.verify;
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..n).map(|_| mpsc::channel(STREAM_DEPTH)).unzip();
        state.senders = senders;
        state.receivers = receivers.into_iter().map(Some).collect();
        state.trailers = vec![None; n];
        state.phase = Phase::Claimed;
        self.changed.notify_all();
        let terms = Terms { protocol: PROTOCOL, transfer: state.transfer.clone(), verify: state.verify };
        let mut info = FlightInfo::new()
            .try_with_schema(&self.schema)
            .map_err(|e| Status::internal(e.to_string()))?
            .with_descriptor(descriptor)
            .with_app_metadata(serde_json::to_vec(&terms).expect("terms serialize"));
        for i in 0..n {
            info =
                info.with_endpoint(FlightEndpoint::new().with_ticket(Ticket::new(format!("{}/{i}", state.transfer))));
        }
        Ok(info)
    }

    /// The rows of stream `ticket` as Flight messages, then its trailer.
    fn stream(
        self: &Arc<Self>,
        ticket: &[u8],
    ) -> std::result::Result<BoxStream<'static, StatusResult<FlightData>>, Status> {
        let mut state = self.state.lock().unwrap();
        let text = std::str::from_utf8(ticket).map_err(|_| Status::invalid_argument("the ticket is not text"))?;
        let (transfer, index) =
            text.split_once('/').ok_or_else(|| Status::invalid_argument("the ticket is not TRANSFER/INDEX"))?;
        if state.phase == Phase::Waiting || transfer != state.transfer {
            return Err(Status::not_found("the ticket is not of this transfer (it ended, or never was)"));
        }
        let index: usize = index.parse().map_err(|_| Status::invalid_argument("the ticket's index is not a number"))?;
        let rx = state
            .receivers
            .get_mut(index)
            .ok_or_else(|| Status::not_found(format!("the transfer has no stream {index}")))?
            .take()
            .ok_or_else(|| Status::failed_precondition(format!("stream {index} was fetched already")))?;
        let tally = Arc::new(Mutex::new(Tally { rows: 0, crc: state.verify.then(crc32fast::Hasher::new), end: false }));
        let input = {
            let tally = tally.clone();
            futures::stream::unfold(rx, move |mut rx| {
                let tally = tally.clone();
                async move {
                    match rx.recv().await {
                        Some(Piece::Batch(batch)) => {
                            tally.lock().unwrap().rows += batch.num_rows() as u64;
                            Some((Ok::<_, FlightError>(batch), rx))
                        }
                        Some(Piece::End) => {
                            tally.lock().unwrap().end = true;
                            None
                        }
                        None => None,
                    }
                }
            })
        };
        let counting = tally.clone();
        let messages = FlightDataEncoderBuilder::new()
            .with_schema(self.schema.clone())
            // The writer cut the batches by their own bytes already.
            .with_max_flight_data_size(usize::MAX)
            .with_options(state.options.clone())
            .build(input)
            .map_err(Status::from)
            .map_ok(move |data| {
                if let Some(crc) = &mut counting.lock().unwrap().crc {
                    checksum(crc, &data);
                }
                data
            });
        let shared = self.clone();
        let trailer = futures::stream::once(async move {
            let (end, rows, crc32) = {
                let mut tally = tally.lock().unwrap();
                (tally.end, tally.rows, tally.crc.take().map_or(0, |c| c.finalize()))
            };
            if !end {
                let state = shared.state.lock().unwrap();
                return Err(match &state.phase {
                    Phase::Ended(why) => Status::aborted(why.clone()),
                    Phase::Refused(why) => Status::aborted(format!("the importer gave up: {why}")),
                    _ => Status::aborted("the exporter stopped sending (it failed or was cancelled)"),
                });
            }
            let trailer = Trailer { rows, crc32 };
            shared.delivered(index, trailer);
            Ok(FlightData {
                app_metadata: serde_json::to_vec(&trailer).expect("trailers serialize").into(),
                ..Default::default()
            })
        });
        Ok(Box::pin(messages.chain(trailer)))
    }

    /// Stream `index` went out whole: a plain client's transfer is done when
    /// every stream did.
    fn delivered(&self, index: usize, trailer: Trailer) {
        let mut state = self.state.lock().unwrap();
        state.trailers[index] = Some(trailer);
        if !state.confirm && state.phase == Phase::Claimed && state.trailers.iter().all(Option::is_some) {
            let rows = state.trailers.iter().flatten().map(|t| t.rows).sum();
            state.phase = Phase::Done(rows);
            self.changed.notify_all();
        }
    }

    /// The importer's `done` or `abort`.
    fn settle(&self, done: bool, body: &[u8]) -> std::result::Result<(), Status> {
        let settle: Settle =
            serde_json::from_slice(body).map_err(|e| Status::invalid_argument(format!("the action's body: {e}")))?;
        let mut state = self.state.lock().unwrap();
        if state.phase == Phase::Waiting || settle.transfer != state.transfer {
            return Err(Status::not_found("not a transfer of this pipe"));
        }
        if state.phase == Phase::Claimed {
            let why: String = settle.message.chars().take(4096).collect();
            state.phase = if done { Phase::Done(settle.rows) } else { Phase::Refused(why) };
            state.senders.clear();
            self.changed.notify_all();
        }
        Ok(())
    }
}

/// Rows and checksum of one stream as it goes out.
struct Tally {
    rows: u64,
    crc: Option<crc32fast::Hasher>,
    /// Whether the writer ended the stream (not just went away).
    end: bool,
}

type StatusResult<T> = std::result::Result<T, Status>;

/// One outgoing stream of a pipe across hosts.
pub struct NetSink {
    shared: Arc<Shared>,
    tx: mpsc::Sender<Piece>,
    rows: u64,
    /// Gathers small batches into messages of [`MESSAGE_ROWS`].
    gather: BatchCoalescer,
}

impl NetSink {
    /// Sends `batch` (waits while the importer is behind: backpressure).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.rows += batch.num_rows() as u64;
        self.gather.push_batch(batch.clone())?;
        self.send_gathered()
    }

    /// Ends the stream; its rows.
    pub fn close(mut self) -> Result<u64> {
        self.gather.finish_buffered_batch()?;
        self.send_gathered()?;
        self.send(Piece::End)?;
        Ok(self.rows)
    }

    fn send_gathered(&mut self) -> Result<()> {
        while let Some(batch) = self.gather.next_completed_batch() {
            for piece in cut_into_messages(&batch) {
                self.send(Piece::Batch(piece))?;
            }
        }
        Ok(())
    }

    /// Puts `piece` into the stream, waiting at most the pipe's timeout of
    /// silence for room. Called from the engine's threads, where blocking on
    /// a channel is not allowed: it polls, sleeping up to a millisecond.
    fn send(&mut self, mut piece: Piece) -> Result<()> {
        let since = Instant::now();
        let mut nap = Duration::from_micros(20);
        loop {
            {
                let state = self.shared.state.lock().unwrap();
                if state.phase != Phase::Claimed {
                    return Err(self.shared.failure(&state.phase));
                }
            }
            piece = match self.tx.try_send(piece) {
                Ok(()) => return Ok(()),
                Err(mpsc::error::TrySendError::Full(piece)) => piece,
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    return Err(wire::lost(&self.shared.name, "importer", std::io::ErrorKind::BrokenPipe.into()))
                }
            };
            if self.shared.url.timeout.is_some_and(|t| since.elapsed() > t.max(Duration::from_secs(1))) {
                return Err(wire::lost(&self.shared.name, "importer", std::io::ErrorKind::TimedOut.into()));
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(1));
        }
    }
}

/// The Flight service of one exported pipe.
struct Service(Arc<Shared>);

type Answer<T> = std::result::Result<Response<T>, Status>;

#[tonic::async_trait]
impl FlightService for Service {
    type HandshakeStream = BoxStream<'static, StatusResult<HandshakeResponse>>;
    type ListFlightsStream = BoxStream<'static, StatusResult<FlightInfo>>;
    type DoGetStream = BoxStream<'static, StatusResult<FlightData>>;
    type DoPutStream = BoxStream<'static, StatusResult<PutResult>>;
    type DoExchangeStream = BoxStream<'static, StatusResult<FlightData>>;
    type DoActionStream = BoxStream<'static, StatusResult<arrow_flight::Result>>;
    type ListActionsStream = BoxStream<'static, StatusResult<ActionType>>;

    async fn handshake(&self, request: Request<Streaming<HandshakeRequest>>) -> Answer<Self::HandshakeStream> {
        self.0.token.check_handshake(request.metadata())?;
        let mut response: Response<Self::HandshakeStream> =
            Response::new(Box::pin(futures::stream::once(async { Ok(HandshakeResponse::default()) })));
        let bearer = self.0.token.bearer().parse().map_err(|_| Status::internal("the token is not a header"))?;
        response.metadata_mut().insert("authorization", bearer);
        Ok(response)
    }

    async fn get_flight_info(&self, request: Request<FlightDescriptor>) -> Answer<FlightInfo> {
        self.0.token.check(request.metadata())?;
        let descriptor = request.into_inner();
        let claim = match descriptor.path.as_slice() {
            [name] => Claim { pipe: name.clone(), workers: 1, compression: None, verify: false, confirm: false },
            [] => serde_json::from_slice(&descriptor.cmd).map_err(|e| {
                Status::invalid_argument(format!("the descriptor is neither a pipe name nor a claim: {e}"))
            })?,
            _ => return Err(Status::invalid_argument("a pipe's descriptor is its name as a path of one element")),
        };
        Ok(Response::new(self.0.claim(claim, descriptor)?))
    }

    async fn do_get(&self, request: Request<Ticket>) -> Answer<Self::DoGetStream> {
        self.0.token.check(request.metadata())?;
        Ok(Response::new(self.0.stream(&request.into_inner().ticket)?))
    }

    async fn do_action(&self, request: Request<Action>) -> Answer<Self::DoActionStream> {
        self.0.token.check(request.metadata())?;
        let action = request.into_inner();
        match action.r#type.as_str() {
            DONE => self.0.settle(true, &action.body)?,
            ABORT => self.0.settle(false, &action.body)?,
            other => return Err(Status::unimplemented(format!("a pipe has no action '{other}'"))),
        }
        Ok(Response::new(Box::pin(futures::stream::empty())))
    }

    async fn list_actions(&self, request: Request<Empty>) -> Answer<Self::ListActionsStream> {
        self.0.token.check(request.metadata())?;
        let actions = [(DONE, "the importer stored the rows"), (ABORT, "the importer gave up")]
            .map(|(name, what)| Ok(ActionType { r#type: name.into(), description: what.into() }));
        Ok(Response::new(Box::pin(futures::stream::iter(actions))))
    }

    async fn list_flights(&self, _: Request<Criteria>) -> Answer<Self::ListFlightsStream> {
        Err(Status::unimplemented("a pipe is claimed by its name with GetFlightInfo"))
    }

    async fn poll_flight_info(&self, _: Request<FlightDescriptor>) -> Answer<PollInfo> {
        Err(Status::unimplemented("a pipe is claimed with GetFlightInfo"))
    }

    async fn get_schema(&self, _: Request<FlightDescriptor>) -> Answer<SchemaResult> {
        Err(Status::unimplemented("a pipe's schema comes with GetFlightInfo"))
    }

    async fn do_put(&self, _: Request<Streaming<FlightData>>) -> Answer<Self::DoPutStream> {
        Err(Status::unimplemented("this is the exporting end of a pipe: it only sends"))
    }

    async fn do_exchange(&self, _: Request<Streaming<FlightData>>) -> Answer<Self::DoExchangeStream> {
        Err(Status::unimplemented("a pipe does not exchange"))
    }
}
