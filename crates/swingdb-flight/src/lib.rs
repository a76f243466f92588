//! swingdb over the network: an Arrow Flight SQL server over a database
//! (`swingdb serve DB`), so that ADBC's Flight SQL driver, JDBC and ODBC Flight
//! SQL drivers and any Flight client query it from other processes and hosts.
//! A face over the core's public API, like the shell and the Python package.

mod catalog;
mod ingest;
mod service;
mod tickets;

pub use service::SwingdbFlight;

use arrow_flight::flight_service_server::FlightServiceServer;
use std::net::SocketAddr;
use swingdb::{Database, Token};
use tonic::transport::server::TcpIncoming;

/// Messages up to this size are taken and sent (gRPC's default of 4 MiB
/// refuses a large batch or a long statement).
const MAX_MESSAGE: usize = 256 << 20;

/// Serves `db` (opened read-only when `read_only`, which clients are told)
/// on `address` to callers holding `token` until the process ends;
/// `listening` is told the address bound (its port chosen by the system when
/// `address` asks for port 0) once calls are accepted.
pub fn serve(
    db: Database,
    read_only: bool,
    address: SocketAddr,
    token: Token,
    listening: impl FnOnce(SocketAddr),
) -> Result<(), String> {
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
        let service = FlightServiceServer::new(SwingdbFlight::new(db, read_only, token))
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        listening(bound);
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(incoming)
            .await
            .map_err(|e| format!("the server stopped: {e}"))
    })
}
