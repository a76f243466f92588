//! The importing end of a pipe across hosts: [`Importer`], a Flight client
//! of the exporter, and [`NetSource`], one of its streams.

use super::*;
use crate::wire;
use arrow_flight::decode::{DecodedPayload, FlightDataDecoder};
use arrow_flight::error::FlightError;
use arrow_flight::flight_service_client::FlightServiceClient;
use arrow_flight::{Action, FlightDescriptor, FlightInfo, Ticket};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use futures::StreamExt;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use swingdb_storage::error::ErrorKind;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Status};

/// Adds the bearer token to every call.
#[derive(Clone)]
struct Bearer(MetadataValue<Ascii>);

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: tonic::Request<()>) -> std::result::Result<tonic::Request<()>, Status> {
        request.metadata_mut().insert("authorization", self.0.clone());
        Ok(request)
    }
}

type Client = FlightServiceClient<InterceptedService<Channel, Bearer>>;

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long an abort waits to reach the exporter.
const ABORT_TIMEOUT: Duration = Duration::from_secs(2);

/// The importer of a pipe across hosts, once it claimed the pipe.
pub struct Importer {
    name: String,
    address: String,
    client: Client,
    transfer: String,
    tickets: Vec<Ticket>,
    schema: SchemaRef,
    verify: bool,
    patience: Option<Duration>,
    /// Per stream, what its trailer says the exporter sent.
    sent: Arc<Mutex<Vec<Option<Trailer>>>>,
    /// Per stream, the flag that ends it.
    stops: Vec<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Importer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Importer").field("pipe", &self.name).field("address", &self.address).finish()
    }
}

impl Importer {
    /// Connects to the exporter at `url`'s address and claims the pipe,
    /// retrying until the URL's timeout while nobody listens there or
    /// another pipe (or importer) holds it.
    pub fn open(url: &PipeUrl) -> Result<Self> {
        let address = url.address.clone().ok_or_else(|| Error::internal("a pipe across hosts has an address"))?;
        let token = token_for(url)?;
        let bearer = Bearer(token.bearer().parse().map_err(|_| Error::internal("a token is a header value"))?);
        let claim = Claim {
            pipe: url.name.clone(),
            workers: url.workers,
            compression: url.compression,
            verify: url.verify,
            confirm: true,
        };
        let descriptor = FlightDescriptor::new_cmd(serde_json::to_vec(&claim).expect("claims serialize"));
        let tls = match &url.tls_ca {
            Some(ca) => {
                let host = address.rsplit_once(':').map_or(address.as_str(), |(h, _)| h);
                let mut tls = ClientTlsConfig::new()
                    .ca_certificate(Certificate::from_pem(pem(url, "tls_ca", ca)?))
                    .domain_name(host.trim_start_matches('[').trim_end_matches(']'));
                if let Some(identity) = identity(url)? {
                    tls = tls.identity(identity);
                }
                Some(tls)
            }
            None if url.tls_cert.is_some() => {
                return Err(Error::programming(format!(
                    "pipe '{}': an importer over TLS needs tls_ca= (the authority of the exporter's certificate)",
                    url.name
                )))
            }
            None => None,
        };
        let deadline = url.timeout.map(|t| Instant::now() + t);
        let name = url.name.clone();
        let (client, info) = block(async {
            let mut last = String::from("nobody answered");
            loop {
                if swingdb_storage::signal::stop_requested() {
                    return Err(Error::new(
                        ErrorKind::Interrupted,
                        format!("pipe '{name}': interrupted while waiting for the exporter; nothing was imported"),
                    ));
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Error::operational(format!(
                        "pipe '{name}': no exporter arrived at {address} within {:.1} s ({last}); start the other side (or raise ?timeout=, in seconds)",
                        url.timeout.unwrap_or_default().as_secs_f64()
                    )));
                }
                match claim_at(&address, tls.clone(), bearer.clone(), descriptor.clone()).await {
                    Ok(found) => return Ok(found),
                    Err(Failure::Retry(why)) => last = why,
                    Err(Failure::Refused(status)) => {
                        // A plaintext call to a TLS port, or a call without the
                        // client certificate mutual TLS wants, ends without an answer.
                        let hint = match status.code() {
                            Code::Unauthenticated | Code::PermissionDenied => "",
                            _ if url.tls_ca.is_none() => "; if the exporter uses TLS, give tls_ca=",
                            _ if url.tls_cert.is_none() => {
                                "; if the exporter asks for a client certificate (mutual TLS), give tls_cert= and tls_key="
                            }
                            _ => "",
                        };
                        return Err(Error::operational(format!(
                            "pipe '{name}': the exporter at {address} refused this side: {}{hint}",
                            status.message()
                        )));
                    }
                }
                tokio::time::sleep(TICK * 2).await;
            }
        })?;
        let terms: Terms = serde_json::from_slice(&info.app_metadata).map_err(|_| {
            Error::operational(format!("pipe '{name}': {address} does not answer as a swingdb pipe exporter"))
        })?;
        if terms.protocol != PROTOCOL {
            return Err(Error::operational(format!(
                "pipe '{name}': the exporter speaks pipe protocol {}, this process {PROTOCOL}; use the same swingdb version on both sides",
                terms.protocol
            )));
        }
        let schema =
            Arc::new(info.clone().try_decode_schema().map_err(|e| {
                Error::operational(format!("pipe '{name}': the exporter's schema cannot be read: {e}"))
            })?);
        let tickets: Vec<Ticket> = info.endpoint.into_iter().filter_map(|e| e.ticket).collect();
        if tickets.is_empty() || tickets.len() > MAX_WORKERS {
            return Err(Error::operational(format!(
                "pipe '{name}': the exporter offered {} streams (1 to {MAX_WORKERS} are taken)",
                tickets.len()
            )));
        }
        let n = tickets.len();
        Ok(Self {
            name,
            address,
            client,
            transfer: terms.transfer,
            tickets,
            schema,
            verify: terms.verify,
            patience: url.timeout,
            sent: Arc::new(Mutex::new(vec![None; n])),
            stops: (0..n).map(|_| Arc::new(AtomicBool::new(false))).collect(),
        })
    }

    /// The schema of the rows coming.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The transfer's streams.
    pub fn streams(&self) -> usize {
        self.tickets.len()
    }

    /// Whether the streams carry checksums.
    pub fn verify(&self) -> bool {
        self.verify
    }

    /// One reader per stream.
    pub fn sources(&self) -> Vec<NetSource> {
        self.tickets
            .iter()
            .enumerate()
            .map(|(index, ticket)| NetSource {
                name: self.name.clone(),
                address: self.address.clone(),
                client: self.client.clone(),
                ticket: ticket.clone(),
                index,
                verify: self.verify,
                patience: self.patience,
                sent: self.sent.clone(),
                stop: self.stops[index].clone(),
            })
            .collect()
    }

    /// What the exporter says it sent, per stream (rows, CRC-32), once every
    /// stream ended.
    pub fn sent(&self) -> Result<Vec<(u64, u32)>> {
        let sent = self.sent.lock();
        sent.iter()
            .map(|t| t.map(|t| (t.rows, t.crc32)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::internal("a stream's trailer is missing after its end"))
    }

    /// Tells the exporter the rows were stored.
    pub fn confirm(&self, rows: u64) -> Result<()> {
        let settle = Settle { transfer: self.transfer.clone(), rows, message: String::new() };
        let mut client = self.client.clone();
        let action = Action::new(DONE, serde_json::to_vec(&settle).expect("settles serialize"));
        block(async move { client.do_action(action).await.map(drop) }).map_err(|status| self.lost(status))
    }

    /// Gives up: ends every stream and tells the exporter why (for a moment;
    /// an exporter that does not hear it learns from the ended streams).
    pub fn abort(&self, why: &str) {
        for stop in &self.stops {
            stop.store(true, Ordering::Release);
        }
        // The exporter takes calls of up to 64 KiB: the reason is cut well below.
        let settle = Settle { transfer: self.transfer.clone(), rows: 0, message: why.chars().take(4096).collect() };
        let mut client = self.client.clone();
        let action = Action::new(ABORT, serde_json::to_vec(&settle).expect("settles serialize"));
        let _ = block(async move { tokio::time::timeout(ABORT_TIMEOUT, client.do_action(action)).await });
    }

    fn lost(&self, status: Status) -> Error {
        stream_error(&self.name, &self.address, status)
    }
}

/// Why a claim did not succeed.
enum Failure {
    /// Nobody (or not yet the right exporter) answers: try again.
    Retry(String),
    /// The exporter refused this side.
    Refused(Status),
}

/// Connects to `address` and claims the pipe `descriptor` names.
async fn claim_at(
    address: &str,
    tls: Option<ClientTlsConfig>,
    bearer: Bearer,
    descriptor: FlightDescriptor,
) -> std::result::Result<(Client, FlightInfo), Failure> {
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut endpoint = Endpoint::from_shared(format!("{scheme}://{address}"))
        .map_err(|e| Failure::Refused(Status::invalid_argument(e.to_string())))?;
    if let Some(tls) = tls {
        endpoint = endpoint.tls_config(tls).map_err(|e| Failure::Refused(Status::invalid_argument(e.to_string())))?;
    }
    let endpoint = endpoint
        .connect_timeout(CONNECT_TIMEOUT)
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .max_frame_size(FRAME)
        .tcp_nodelay(true);
    let channel = endpoint.connect().await.map_err(|e| Failure::Retry(describe(&e)))?;
    let mut client = FlightServiceClient::with_interceptor(channel, bearer)
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE);
    match client.get_flight_info(descriptor).await {
        Ok(info) => Ok((client, info.into_inner())),
        Err(s) if matches!(s.code(), Code::NotFound | Code::Unavailable) => Err(Failure::Retry(s.message().into())),
        Err(s) => Err(Failure::Refused(s)),
    }
}

/// A connection error with its causes (tonic's own says only "transport error").
fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

/// The error of a stream or call that failed with `status`.
fn stream_error(name: &str, address: &str, status: Status) -> Error {
    match status.code() {
        Code::Aborted => Error::operational(format!(
            "pipe '{name}': the exporter gave up: {}; nothing was imported",
            status.message()
        )),
        Code::Cancelled => Error::new(ErrorKind::Interrupted, format!("pipe '{name}': the transfer was cancelled")),
        _ => Error::operational(format!(
            "pipe '{name}': the connection to the exporter at {address} broke off ({}: {}); nothing was imported",
            status.code().description(),
            status.message()
        )),
    }
}

/// One incoming stream of a pipe across hosts.
pub struct NetSource {
    name: String,
    address: String,
    client: Client,
    ticket: Ticket,
    index: usize,
    verify: bool,
    patience: Option<Duration>,
    sent: Arc<Mutex<Vec<Option<Trailer>>>>,
    stop: Arc<AtomicBool>,
}

impl NetSource {
    /// The flag that ends this stream from another thread.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Reads the stream to its end, handing each batch to `each` (which
    /// returns false to stop early: then `None`). Returns rows and the CRC-32
    /// of the messages read (0 without verify). Called from a thread of its
    /// own, outside any async context (`each` may block).
    pub fn read_all(self, mut each: impl FnMut(RecordBatch) -> bool) -> Result<Option<(u64, u32)>> {
        let lost = |status: Status| stream_error(&self.name, &self.address, status);
        let mut client = self.client.clone();
        let ticket = self.ticket.clone();
        let response = self.wait(async move { client.do_get(ticket).await })?.map_err(lost)?;
        let tally = Arc::new(Mutex::new((self.verify.then(crc32fast::Hasher::new), None::<Trailer>)));
        let counting = tally.clone();
        // The trailer is taken out before decoding (it holds no IPC message).
        let messages = response.into_inner().filter_map(move |message| {
            let counting = counting.clone();
            async move {
                let mut tally = counting.lock();
                match message {
                    Ok(data) if tally.1.is_some() => Some(Err(FlightError::ProtocolError(format!(
                        "{} bytes after the trailer",
                        data.data_body.len()
                    )))),
                    Ok(data) if is_trailer(&data) => match serde_json::from_slice::<Trailer>(&data.app_metadata) {
                        Ok(trailer) => {
                            tally.1 = Some(trailer);
                            None
                        }
                        Err(e) => Some(Err(FlightError::ProtocolError(format!("a damaged trailer: {e}")))),
                    },
                    Ok(data) => {
                        if let Some(crc) = &mut tally.0 {
                            checksum(crc, &data);
                        }
                        Some(Ok(data))
                    }
                    Err(status) => Some(Err(FlightError::Tonic(Box::new(status)))),
                }
            }
        });
        let mut decoder = FlightDataDecoder::new(messages);
        let mut rows = 0u64;
        loop {
            let next = self.wait(decoder.next())?;
            match next {
                None => break,
                Some(Ok(decoded)) => {
                    if let DecodedPayload::RecordBatch(batch) = decoded.payload {
                        rows += batch.num_rows() as u64;
                        if !each(batch) {
                            return Ok(None);
                        }
                    }
                }
                Some(Err(FlightError::Tonic(status))) => return Err(lost(*status)),
                Some(Err(e)) => {
                    return Err(Error::operational(format!(
                        "pipe '{}': a data stream broke off or is damaged ({e}); nothing was imported",
                        self.name
                    )))
                }
            }
        }
        let (crc, trailer) = {
            let mut tally = tally.lock();
            (tally.0.take().map_or(0, |c| c.finalize()), tally.1)
        };
        let trailer = trailer.ok_or_else(|| {
            Error::operational(format!(
                "pipe '{}': a data stream ended without its trailer (it broke off); nothing was imported",
                self.name
            ))
        })?;
        self.sent.lock()[self.index] = Some(trailer);
        Ok(Some((rows, crc)))
    }

    /// Waits for `work` on the network threads, at most the pipe's timeout of
    /// silence, ending at once when the stream is stopped.
    fn wait<F: std::future::Future>(&self, work: F) -> Result<F::Output> {
        let since = Instant::now();
        let mut work = std::pin::pin!(work);
        loop {
            if self.stop.load(Ordering::Acquire) {
                return Err(wire::lost(&self.name, "exporter", std::io::Error::other(crate::link::Stopped)));
            }
            // The timer is made inside the runtime, whose clock it needs.
            if let Ok(done) = runtime().block_on(async { tokio::time::timeout(TICK, &mut work).await }) {
                return Ok(done);
            }
            if self.patience.is_some_and(|p| since.elapsed() > p.max(Duration::from_secs(1))) {
                return Err(wire::lost(&self.name, "exporter", std::io::ErrorKind::TimedOut.into()));
            }
        }
    }
}
