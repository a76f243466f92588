//! `swingdb serve DB`: the database as an Arrow Flight SQL server.

use crate::{FAILURE, SUCCESS};
use clap::Args;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;
use swingdb::{Database, OpenOptions};
use swingdb_flight::{Limits, ServeOptions, Tls};
use swingdb_pipe::net::Token;

/// The arguments of `swingdb serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Database directory (created if absent); in-memory when omitted.
    database: Option<String>,
    /// The address to listen on: this machine only unless told otherwise
    /// (0.0.0.0 for every network).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// The port (0: any free port, printed at start).
    #[arg(long, default_value_t = 31337)]
    port: u16,
    /// A file holding the token clients must send; else $SWINGDB_TOKEN, else
    /// a new random token, printed at start.
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Refuse every write.
    #[arg(long)]
    read_only: bool,
    /// Serve over TLS with this certificate (PEM, the chain from the server's own).
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Mutual TLS: accept only clients whose certificate this authority signed (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// Offer a long result without ORDER BY as this many endpoints, which
    /// clients such as ADBC fetch in parallel; its rows then arrive in no
    /// particular order (1, the default: one stream, in the engine's order).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=64))]
    endpoints: u8,
    /// The memory results not yet fetched to their end may hold, all
    /// together ('2GB', '512MiB'); each client (network connection) a
    /// quarter of it. New statements past it are refused with
    /// RESOURCE_EXHAUSTED. Default: a quarter of the memory queries may take.
    #[arg(long, value_parser = parse_bytes)]
    max_pending_bytes: Option<u64>,
    /// Seconds a result waits for its first fetch before it is dropped (its
    /// statement stops).
    #[arg(long, default_value_t = 30.0, value_parser = parse_seconds)]
    result_timeout: f64,
}

/// A size as `SET memory_limit` takes it.
fn parse_bytes(text: &str) -> Result<u64, String> {
    swingdb::parse_size(text)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("'{text}' is not a size; give one like '2GB' or '512MiB'"))
}

/// A positive number of seconds.
fn parse_seconds(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .ok_or_else(|| format!("'{text}' is not a number of seconds above 0"))
}

/// What results not fetched to their end may hold, as `args` say.
fn limits(args: &ServeArgs) -> Limits {
    let default = Limits::default_for_machine();
    let bytes = args.max_pending_bytes.map_or(default.max_pending_bytes, |b| usize::try_from(b).unwrap_or(usize::MAX));
    Limits::new(bytes, Duration::from_secs_f64(args.result_timeout))
}

/// The token from the file, the environment, or a new one (and whether it is new).
fn token(args: &ServeArgs) -> Result<(Token, bool), String> {
    if let Some(file) = &args.token_file {
        return Token::from_file(file).map(|t| (t, false));
    }
    if let Some(token) = Token::from_env() {
        return token.map(|t| (t, false));
    }
    Token::generate().map(|t| (t, true)).map_err(|e| format!("cannot make a token: {e}"))
}

/// Runs the server until the process is stopped.
pub fn main(args: ServeArgs) -> u8 {
    let (token, generated) = match token(&args) {
        Ok(token) => token,
        Err(e) => {
            eprintln!("Error: {e}");
            return FAILURE;
        }
    };
    let options = OpenOptions { read_only: args.read_only, ..Default::default() };
    let db = match &args.database {
        Some(path) => Database::open(path, options),
        None => Database::in_memory_with(options),
    };
    let db = match db {
        Ok(db) => db,
        Err(e) => {
            eprintln!("Error: {e}");
            return FAILURE;
        }
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => match Tls::from_files(cert, key, args.tls_client_ca.as_deref()) {
            Ok(tls) => Some(tls),
            Err(e) => {
                eprintln!("Error: {e}");
                return FAILURE;
            }
        },
        _ => None,
    };
    let scheme = if tls.is_some() { "grpc+tls" } else { "grpc" };
    let address = SocketAddr::new(args.host, args.port);
    let shown = token.as_str().to_string();
    let options = ServeOptions {
        read_only: args.read_only,
        address,
        token,
        tls,
        endpoints: args.endpoints.into(),
        limits: limits(&args),
    };
    let served = swingdb_flight::serve(db, options, |bound| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "swingdb serve: Flight SQL on {scheme}://{bound}");
        if generated {
            let _ = writeln!(out, "token: {shown}");
        }
        let _ = out.flush();
    });
    match served {
        Ok(()) => SUCCESS,
        Err(e) => {
            eprintln!("Error: {e}");
            FAILURE
        }
    }
}
