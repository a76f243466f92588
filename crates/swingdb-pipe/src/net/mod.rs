//! Pipes across hosts: `db://HOST:PORT/NAME` over Arrow Flight.
//!
//! The exporter listens on `HOST:PORT` (one of its own addresses, or
//! `0.0.0.0`) with a Flight service for its one pipe ([`Exporter`]); the
//! importer connects to it ([`Importer`]). Either may start first: the
//! exporter waits for a claim up to the pipe's timeout, and the importer
//! retries connecting for as long. Both ends must hold the same token
//! (`token_file=` or `$SWINGDB_TOKEN`), which every call carries as
//! `authorization: Bearer <token>`.
//!
//! The protocol, in Flight's own terms, so that any Flight client (pyarrow's,
//! say) can fetch a pipe's rows without swingdb:
//! 1. `GetFlightInfo` claims the pipe. Its descriptor is the pipe's name as a
//!    path (a plain client), or a command holding a JSON [`Claim`] (the
//!    importer's workers, compression and verify, and whether it confirms).
//!    The answer holds the schema, one endpoint per stream (the larger of the
//!    two sides' worker counts), each with the ticket `TRANSFER/INDEX` where
//!    `TRANSFER` is random and new for this claim, and [`Terms`] as its app
//!    metadata. A second claim is refused while the first lasts.
//! 2. `DoGet` of each ticket streams that worker's rows as Arrow IPC
//!    messages (cut to about 2 MB each, compressed if agreed), then a last
//!    message with no IPC body whose app metadata is the stream's
//!    [`Trailer`]: its rows and (with `verify`) the CRC-32 of every message's
//!    header and body before it. A stream that ends without it broke off. An
//!    exporter that fails ends its streams with an `ABORTED` status holding
//!    the reason.
//! 3. A confirming importer calls the action `swingdb.pipe.done` with the rows
//!    it stored (after its commit) or `swingdb.pipe.abort` with its reason; the
//!    exporter's statement waits for it and succeeds only on `done` with every
//!    row it sent. A plain client's transfer is done when every stream's
//!    trailer has gone out.
//!
//! With TLS (`tls_cert=`/`tls_key=` on the exporter, `tls_ca=` on the
//! importer; mutual TLS with `tls_ca=` on the exporter and `tls_cert=`/
//! `tls_key=` on the importer), the token and the rows travel encrypted.
//!
//! What the partner sends is untrusted: claims and tickets are parsed and
//! bounded (at most [`MAX_WORKERS`] streams), messages are at most
//! [`MAX_MESSAGE`] bytes, a ticket of another transfer or an unknown stream is
//! refused, each stream is served once, and every wait for the partner ends
//! after the pipe's timeout of silence, or at Ctrl-C. No file is involved on
//! either side: the exporter's listening socket is the only shared name, and
//! the kernel gives it to one process at a time (a second exporter on the same
//! address retries binding until the first one's transfer ended, or its
//! timeout passed). An address is reused only after the transfer that held it
//! ended; a late call of an old importer reaches the new exporter with the old
//! transfer's id and is refused.

mod export;
mod import;
mod service;
mod token;

pub use export::{Exporter, NetSink};
pub use import::{Importer, NetSource};
pub use token::{Token, TOKEN_VARIABLE};

use super::url::{Compression, PipeUrl, MAX_WORKERS};
use arrow_flight::FlightData;
use datafusion::arrow::array::RecordBatch;
use std::sync::OnceLock;
use std::time::Duration;
use swingdb_storage::error::{Error, Result};

/// Version of the protocol above, in [`Terms`]; ends speaking another refuse.
const PROTOCOL: u32 = 1;

/// Largest Flight message taken or sent (gRPC's default of 4 MiB refuses a
/// large batch).
const MAX_MESSAGE: usize = 256 << 20;

/// HTTP/2 flow-control windows of each stream and connection, and the
/// largest frame, on both ends. gRPC's defaults (64 KiB windows, 16 KiB
/// frames) stall a bulk transfer on window updates: it ran at 150 MB/s on
/// loopback with them.
const STREAM_WINDOW: u32 = 16 << 20;
const CONNECTION_WINDOW: u32 = 64 << 20;
const FRAME: u32 = 1 << 20;

/// Largest body of one Flight message, so that clients with gRPC's 4 MiB
/// limit read every stream (see [`cut_into_messages`]).
pub const MESSAGE_BYTES: usize = 2 << 20;

/// `batch` cut by rows into pieces of at most about [`MESSAGE_BYTES`] of
/// their own bytes, to be sent as one Flight message each (with the
/// encoder's own cutting off). Flight's encoder counts whole buffers, so a
/// batch sliced from a stored segment looked as large as the segment and went
/// out as messages of 44 rows: 5M rows took 0.7 s of messages alone.
pub fn cut_into_messages(batch: &RecordBatch) -> Vec<RecordBatch> {
    let bytes: usize = batch.columns().iter().map(|c| c.to_data().get_slice_memory_size().unwrap_or(0)).sum();
    let rows = batch.num_rows();
    let pieces = bytes.div_ceil(MESSAGE_BYTES).clamp(1, rows.max(1));
    let per_piece = rows.div_ceil(pieces).max(1);
    if pieces == 1 {
        return vec![batch.clone()];
    }
    (0..rows).step_by(per_piece).map(|start| batch.slice(start, per_piece.min(rows - start))).collect()
}

/// How often a wait for the partner asks whether to stop.
const TICK: Duration = Duration::from_millis(50);

/// The action a confirming importer calls when it stored the rows.
const DONE: &str = "swingdb.pipe.done";

/// The action an importer calls when it gives up.
const ABORT: &str = "swingdb.pipe.abort";

/// What an importer asks for when it claims a pipe (a `GetFlightInfo`
/// command, as JSON).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Claim {
    pipe: String,
    workers: usize,
    compression: Option<Compression>,
    verify: bool,
    /// Whether the importer settles the transfer with an action.
    confirm: bool,
}

/// What the exporter agreed to (the `FlightInfo`'s app metadata, as JSON).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Terms {
    protocol: u32,
    transfer: String,
    verify: bool,
}

/// The last message of a stream (its app metadata, as JSON).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Trailer {
    rows: u64,
    crc32: u32,
}

/// The body of [`DONE`] and [`ABORT`] (as JSON).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Settle {
    transfer: String,
    rows: u64,
    message: String,
}

/// The threads of every network pipe of the process, made at the first one.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(std::thread::available_parallelism().map_or(2, |n| n.get()))
            .thread_name("swingdb-net")
            .enable_all()
            .build()
            .expect("the network pipes' threads start")
    })
}

/// Runs `work` on the network threads and waits for it, also from inside an
/// async context (the engine's statements), where blocking on a runtime is
/// not allowed: then from a thread of its own.
fn block<F>(work: F) -> F::Output
where
    F: std::future::Future + Send,
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return runtime().block_on(work);
    }
    std::thread::scope(|scope| scope.spawn(|| runtime().block_on(work)).join().expect("a network wait panicked"))
}

/// The token both ends of `url` share: from its `token_file=`, else
/// `$SWINGDB_TOKEN`; a pipe across hosts without one is refused.
fn token_for(url: &PipeUrl) -> Result<Token> {
    let found = match &url.token_file {
        Some(file) => Some(Token::from_file(file)),
        None => Token::from_env(),
    };
    match found {
        Some(token) => token.map_err(|e| Error::programming(format!("pipe '{}': {e}", url.name))),
        None => Err(Error::programming(format!(
            "pipe '{}': a pipe across hosts needs a token both sides share: set ${TOKEN_VARIABLE}, or give token_file=PATH",
            url.name
        ))),
    }
}

/// The PEM file `path`, for option `option` of `url`.
fn pem(url: &PipeUrl, option: &str, path: &std::path::Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(format!("pipe '{}': reading {option}={}", url.name, path.display()), e))
}

/// This side's certificate and key, when `url` gives them (both or neither).
fn identity(url: &PipeUrl) -> Result<Option<tonic::transport::Identity>> {
    match (&url.tls_cert, &url.tls_key) {
        (Some(cert), Some(key)) => {
            Ok(Some(tonic::transport::Identity::from_pem(pem(url, "tls_cert", cert)?, pem(url, "tls_key", key)?)))
        }
        (None, None) => Ok(None),
        _ => Err(Error::programming(format!("pipe '{}': tls_cert and tls_key go together", url.name))),
    }
}

/// Adds a message's header and body to a stream's checksum.
fn checksum(crc: &mut crc32fast::Hasher, data: &FlightData) {
    crc.update(&data.data_header);
    crc.update(&data.data_body);
}

/// Whether `data` is a stream's trailer: no IPC message, only app metadata.
fn is_trailer(data: &FlightData) -> bool {
    data.data_header.is_empty() && !data.app_metadata.is_empty()
}

/// Streams a transfer uses, bounded whatever the importer asked for.
fn streams(exporter: usize, importer: usize) -> usize {
    exporter.max(importer).clamp(1, MAX_WORKERS)
}
