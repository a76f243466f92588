//! swingdb over the network: an Arrow Flight SQL server over a database
//! (`swingdb serve DB`), so that ADBC's Flight SQL driver, JDBC and ODBC Flight
//! SQL drivers and any Flight client query it from other processes and hosts.
//! A face over the core's public API, like the shell and the Python package.

mod answers;
mod catalog;
mod ingest;
mod pool;
mod prepared;
mod reasons;
mod requests;
mod service;
mod statements;
mod status;
mod tickets;
mod transactions;
mod uploads;

pub use service::SwingdbFlight;
pub use tickets::Limits;

use arrow_flight::flight_service_server::FlightServiceServer;
use requests::CheckedRequests;
use std::net::SocketAddr;
use std::path::Path;
use swingdb::Database;
use swingdb_pipe::net::Token;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Certificate, Identity, ServerTlsConfig};

/// Messages up to this size are taken and sent (gRPC's default of 4 MiB
/// refuses a large batch or a long statement).
const MAX_MESSAGE: usize = 256 << 20;

/// The server's TLS identity (PEM certificate chain and private key) and,
/// for mutual TLS, the certificate authority whose certificates clients must
/// present.
pub struct Tls {
    identity: Identity,
    client_ca: Option<Certificate>,
}

impl Tls {
    /// Reads the PEM files `cert`, `key` and (for mutual TLS) `client_ca`.
    pub fn from_files(cert: &Path, key: &Path, client_ca: Option<&Path>) -> Result<Self, String> {
        let read = |path: &Path| std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()));
        Ok(Self {
            identity: Identity::from_pem(read(cert)?, read(key)?),
            client_ca: client_ca.map(read).transpose()?.map(Certificate::from_pem),
        })
    }
}

/// How a database is served.
pub struct ServeOptions {
    /// The database is opened read-only (clients are told).
    pub read_only: bool,
    /// The address to listen on (port 0: one the system chooses).
    pub address: SocketAddr,
    /// What callers must present.
    pub token: Token,
    /// Serve over TLS with this identity.
    pub tls: Option<Tls>,
    /// The endpoints a long unordered result is offered as, for clients
    /// that fetch them in parallel (1: one stream per result).
    pub endpoints: usize,
    /// What results not fetched to their end may hold, and how long one
    /// waits for its fetch.
    pub limits: Limits,
}

/// Serves `db` as `options` say until the process ends; `listening` is told
/// the address bound (its port chosen by the system when the address asks
/// for port 0) once calls are accepted.
pub fn serve(db: Database, options: ServeOptions, listening: impl FnOnce(SocketAddr)) -> Result<(), String> {
    let ServeOptions { read_only, address, token, tls, endpoints, limits } = options;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("swingdb-flight")
        .build()
        .map_err(|e| format!("cannot start the server's threads: {e}"))?;
    runtime.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(address).await.map_err(|e| format!("cannot listen on {address}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        // Small replies go out at once, not after Nagle's 40 ms.
        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
        // The token is checked on each call's headers before its body is
        // read: a caller without it cannot make the server take in a message
        // of up to MAX_MESSAGE bytes. (Each call checks it again: the bearer
        // header, or the handshake's basic credentials.)
        let gate = token.clone();
        let flight = SwingdbFlight::new(db, read_only, token, endpoints, limits);
        tokio::spawn(flight.expiry());
        let service = FlightServiceServer::new(CheckedRequests::new(flight))
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        let service =
            tonic::service::interceptor::InterceptedService::new(service, move |request: tonic::Request<()>| {
                gate.check_handshake(request.metadata()).map(|()| request)
            });
        let mut builder = tonic::transport::Server::builder();
        if let Some(tls) = tls {
            let mut config = ServerTlsConfig::new().identity(tls.identity);
            if let Some(ca) = tls.client_ca {
                config = config.client_ca_root(ca);
            }
            builder =
                builder.tls_config(config).map_err(|e| format!("the TLS certificate or key is not usable: {e}"))?;
        }
        listening(bound);
        builder.add_service(service).serve_with_incoming(incoming).await.map_err(|e| format!("the server stopped: {e}"))
    })
}
