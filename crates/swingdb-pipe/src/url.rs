//! Pipe endpoints as URLs: `db://NAME?workers=4&timeout=30&compression=lz4&verify=1`
//! on one host, `db://HOST:PORT/NAME?...` across hosts (see [`super::net`]).

use datafusion::arrow::ipc::writer::IpcWriteOptions;
use datafusion::arrow::ipc::CompressionType;
use std::time::Duration;
use swingdb_share::names;
use swingdb_storage::error::{Error, Result};

/// The scheme of swingdb pipe endpoints.
pub const SCHEME: &str = "db://";

/// Longest finite `timeout=`: a deadline this far ahead is still a time the
/// clock can hold (a deadline of 1e30 s overflowed it).
const MAX_TIMEOUT: Duration = Duration::from_secs(365 * 24 * 3600);

/// How long each side waits for its partner unless `timeout=` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Most data streams one transfer may use.
pub const MAX_WORKERS: usize = 64;

/// Compression of the Arrow IPC streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// LZ4 frames: cheap, for fast links and compressible data.
    Lz4,
    /// Zstandard: smaller, costs more CPU.
    Zstd,
}

impl Compression {
    /// Parses `none`, `lz4` or `zstd`.
    pub fn parse(text: &str) -> Result<Option<Self>> {
        match text.to_ascii_lowercase().as_str() {
            "" | "none" | "off" => Ok(None),
            "lz4" | "lz4_frame" => Ok(Some(Compression::Lz4)),
            "zstd" => Ok(Some(Compression::Zstd)),
            other => Err(Error::programming(format!("unknown pipe compression '{other}'; use none, lz4 or zstd"))),
        }
    }

    /// How Arrow IPC streams are written with `compression` (none: as they are).
    pub fn ipc_options(compression: Option<Self>) -> Result<IpcWriteOptions> {
        let kind = compression.map(|c| match c {
            Compression::Lz4 => CompressionType::LZ4_FRAME,
            Compression::Zstd => CompressionType::ZSTD,
        });
        Ok(IpcWriteOptions::default().try_with_compression(kind)?)
    }
}

/// A parsed pipe endpoint: the pipe's name and the options of this side.
///
/// ```edition2024
/// use swingdb_pipe::PipeUrl;
/// assert!(PipeUrl::is_pipe("db://sales"));
/// assert!(!PipeUrl::is_pipe("sales.csv"));
/// let url = PipeUrl::parse("db://sales?workers=2")?;
/// assert!(PipeUrl::parse("db://a/b").is_err(), "a name is one file name");
/// let far = PipeUrl::parse("db://db2.local:7000/sales?workers=4")?; // across hosts
/// assert_eq!(far.address.as_deref(), Some("db2.local:7000"));
/// # let _ = url;
/// # Ok::<(), swingdb_storage::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PipeUrl {
    /// The pipe's name (validated like snapshot names).
    pub name: String,
    /// Parallel streams this side asks for (the transfer uses the larger of both sides' counts).
    pub workers: usize,
    /// How long to wait for the partner; `None` waits for ever.
    pub timeout: Option<Duration>,
    /// Compression this side asks for (the exporter's choice wins when both ask).
    pub compression: Option<Compression>,
    /// Checksum every stream's bytes on both sides and fail on any difference.
    pub verify: bool,
    /// `HOST:PORT` of a pipe across hosts: where the exporter listens and the
    /// importer connects (`None`: on this host, through the rendezvous).
    pub address: Option<String>,
    /// A file holding the token both ends of a pipe across hosts share
    /// (`None`: `$SWINGDB_TOKEN`).
    pub token_file: Option<std::path::PathBuf>,
    /// Across hosts, this side's TLS certificate (PEM): the exporter's makes
    /// it serve TLS; an importer's is its client certificate (mutual TLS).
    pub tls_cert: Option<std::path::PathBuf>,
    /// The private key of `tls_cert` (PEM).
    pub tls_key: Option<std::path::PathBuf>,
    /// The certificate authority (PEM) the other side's certificate must be
    /// signed by: an importer with one connects over TLS; an exporter with
    /// one asks importers for a certificate (mutual TLS).
    pub tls_ca: Option<std::path::PathBuf>,
}

impl PipeUrl {
    /// A URL for `name` with default options.
    pub fn named(name: &str) -> Result<Self> {
        names::validate_as("pipe", name)?;
        Ok(Self {
            name: name.to_string(),
            workers: 1,
            timeout: Some(DEFAULT_TIMEOUT),
            compression: None,
            verify: false,
            address: None,
            token_file: None,
            tls_cert: None,
            tls_key: None,
            tls_ca: None,
        })
    }

    /// Whether `text` names a swingdb pipe (`db://...`).
    pub fn is_pipe(text: &str) -> bool {
        text.as_bytes().get(..SCHEME.len()).is_some_and(|start| start.eq_ignore_ascii_case(SCHEME.as_bytes()))
    }

    /// Parses `db://NAME[?option=value&...]` or `db://HOST:PORT/NAME[?...]`.
    pub fn parse(text: &str) -> Result<Self> {
        if !Self::is_pipe(text) {
            return Err(Error::programming(format!(
                "'{text}' is not a pipe URL; pipes look like db://NAME (or db://HOST:PORT/NAME across hosts)"
            )));
        }
        let rest = &text[SCHEME.len()..];
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (address, name) = match path.split_once('/') {
            Some((authority, name)) => (Some(parse_address(authority)?), name),
            None => (None, path),
        };
        let mut url = Self::named(name)?;
        url.address = address;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            url.set(key, value).map_err(|e| Error::programming(format!("pipe '{name}': {}", e.message())))?;
        }
        Ok(url)
    }

    /// Sets one option by name (from a URL or a keyword argument).
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "workers" => {
                let n: usize =
                    value.parse().map_err(|_| Error::programming(format!("workers={value} is not a number")))?;
                if n == 0 || n > MAX_WORKERS {
                    return Err(Error::programming(format!("workers must be between 1 and {MAX_WORKERS}, not {n}")));
                }
                self.workers = n;
            }
            "timeout" => {
                self.timeout = match value {
                    "none" | "inf" | "never" => None,
                    _ => {
                        let secs: f64 =
                            value.parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0).ok_or_else(|| {
                                Error::programming(format!("timeout={value} is not a number of seconds (or none)"))
                            })?;
                        if secs > MAX_TIMEOUT.as_secs_f64() {
                            return Err(Error::programming(format!(
                                "timeout={value} is longer than a year ({} s); give timeout=none to wait without end",
                                MAX_TIMEOUT.as_secs()
                            )));
                        }
                        Some(Duration::from_secs_f64(secs))
                    }
                }
            }
            "compression" => self.compression = Compression::parse(value)?,
            "verify" => {
                self.verify = match value.to_ascii_lowercase().as_str() {
                    "" | "1" | "true" | "yes" | "on" => true,
                    "0" | "false" | "no" | "off" => false,
                    _ => return Err(Error::programming(format!("verify={value} is not a boolean (use 1 or 0)"))),
                }
            }
            "token_file" => self.token_file = Some(value.into()),
            "tls_cert" => self.tls_cert = Some(value.into()),
            "tls_key" => self.tls_key = Some(value.into()),
            "tls_ca" => self.tls_ca = Some(value.into()),
            other => {
                return Err(Error::programming(format!(
                    "unknown option '{other}'; pipe options are workers, timeout, compression, verify, \
                     token_file, tls_cert, tls_key and tls_ca"
                )))
            }
        }
        Ok(())
    }
}

/// `HOST:PORT` (a name, an IPv4 address or a bracketed IPv6 address, and a
/// port from 1 to 65535), as given.
fn parse_address(authority: &str) -> Result<String> {
    let bad = || {
        Error::programming(format!(
            "'{authority}' is not HOST:PORT; a pipe across hosts looks like db://HOST:PORT/NAME \
             (the name of a pipe on one host has no '/')"
        ))
    };
    let (host, port) = authority.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let host_ok = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
        None => !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'),
    };
    if port == 0 || !host_ok {
        return Err(bad());
    }
    Ok(authority.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_bad_ones_name_the_pipe() {
        let url = PipeUrl::parse("db://sales?workers=4&timeout=2.5&compression=zstd&verify=1").unwrap();
        assert_eq!(url.name, "sales");
        assert_eq!(url.workers, 4);
        assert_eq!(url.timeout, Some(Duration::from_millis(2500)));
        assert_eq!(url.compression, Some(Compression::Zstd));
        assert!(url.verify);
        assert_eq!(PipeUrl::parse("DB://x").unwrap().timeout, Some(DEFAULT_TIMEOUT));
        for (bad, says) in [
            ("db://x?workers=0", "between 1 and"),
            ("db://x?workers=lots", "not a number"),
            ("db://x?colour=red", "unknown option 'colour'"),
            ("db://x?compression=gzip", "unknown pipe compression"),
            ("db://x?timeout=-1", "not a number of seconds"),
            ("db://x?timeout=1e30", "longer than a year"),
            ("db://x?timeout=nan", "not a number of seconds"),
            ("db://", "pipe name \"\" is empty"),
            ("db://a/b", "'a' is not HOST:PORT"),
            ("db://h:0/b", "'h:0' is not HOST:PORT"),
            ("db://h:1/a/b", "contains '/'"),
            ("db://h x:1/b", "is not HOST:PORT"),
            ("db://.hidden", "starts with '.'"),
        ] {
            let err = PipeUrl::parse(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert!(PipeUrl::parse("db://x?colour=red").unwrap_err().to_string().contains("pipe 'x'"));
        let far = PipeUrl::parse("db://10.0.0.2:7000/sales?workers=4&token_file=/run/t").unwrap();
        assert_eq!((far.name.as_str(), far.address.as_deref()), ("sales", Some("10.0.0.2:7000")));
        assert_eq!(far.token_file.as_deref(), Some(std::path::Path::new("/run/t")));
        assert_eq!(PipeUrl::parse("db://[::1]:7000/s").unwrap().address.as_deref(), Some("[::1]:7000"));
        assert_eq!(PipeUrl::parse("db://sales").unwrap().address, None);
        // The scheme's length ends inside a character: not a pipe, no panic.
        assert!(!PipeUrl::is_pipe("/deᘳv/null"));
    }
}
