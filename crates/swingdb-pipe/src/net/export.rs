//! The exporting end of a pipe across hosts: [`Exporter`], which listens
//! with the pipe's Flight service ([`super::service`]) until the transfer
//! ends, and [`NetSink`], one of its streams.

use super::service::{Phase, Piece, Service, Shared, State};
use super::*;
use crate::wire;
use arrow_flight::flight_service_server::FlightServiceServer;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::BatchCoalescer;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::writer::IpcWriteOptions;
use parking_lot::{Condvar, Mutex};
use std::sync::Arc;
use std::time::Instant;
use swingdb_storage::error::ErrorKind;
use tokio::sync::mpsc;

/// Largest call the exporter takes (a claim, a ticket, an action).
const CALL_MESSAGE: usize = 64 << 10;

/// Rows per Flight message that small batches are gathered into: each
/// message costs a few microseconds on both ends.
const MESSAGE_ROWS: usize = 32 * 1024;

/// How long a finished exporter lets its last answers (an abort's reason)
/// reach the importer before its service stops.
const LINGER: Duration = Duration::from_secs(2);

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

    /// How many streams the claimed transfer has.
    pub fn streams(&self) -> usize {
        self.shared.state.lock().trailers.len()
    }

    /// The writers of the claimed transfer's streams.
    pub fn sinks(&self) -> Vec<NetSink> {
        let state = self.shared.state.lock();
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
        let mut state = self.shared.state.lock();
        loop {
            if until(&state.phase) {
                return Ok(state.phase.clone());
            }
            if swingdb_storage::signal::stop_requested() {
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
            self.shared.changed.wait_for(&mut state, TICK);
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
                if swingdb_storage::signal::stop_requested() {
                    return Err(Error::new(ErrorKind::Interrupted, format!("pipe '{name}': interrupted")));
                }
                std::thread::sleep(TICK);
            }
            Err(e) => return Err(cannot(e)),
        }
    }
}

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
        self.send(Piece::End(self.rows))?;
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
                let state = self.shared.state.lock();
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
