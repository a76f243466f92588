//! The two ends of one transfer over the control connection (see [`super::wire`]):
//! [`Sender`] (the exporter) and [`Receiver`] (the importer), and the Arrow IPC
//! streams between them.

use super::link::{is_stopped, Link};
use super::net::{Exporter, Importer, NetSink, NetSource};
use super::rendezvous::Rendezvous;
use super::url::{Compression, PipeUrl};
use super::wire::{self, Hello, Message, Offer, PROTOCOL};
use super::Role;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use parking_lot::Mutex;
use std::fs;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use swingdb_storage::dir::files::create_private_file;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::segment::describe_untrusted;
use swingdb_storage::{DbDir, SegmentMeta};

mod receive;
mod send;

pub use receive::{Receiver, StreamStop};
pub use send::{Sender, StreamSink};

/// Bytes buffered per data stream before a write reaches the socket.
const STREAM_BUFFER: usize = 1 << 20;

/// What the two hellos agreed on.
#[derive(Debug, Clone)]
struct Agreed {
    streams: usize,
    compression: Option<Compression>,
    verify: bool,
}

fn agree(exporter: &Hello, importer: &Hello) -> Agreed {
    Agreed {
        streams: exporter.workers.max(importer.workers),
        compression: exporter.compression.or(importer.compression),
        verify: exporter.verify || importer.verify,
    }
}

fn hello(url: &PipeUrl, schema: Vec<u8>, offer: Option<Offer>) -> Hello {
    Hello {
        protocol: PROTOCOL,
        pid: std::process::id(),
        workers: url.workers,
        compression: url.compression,
        verify: url.verify,
        schema,
        offer,
    }
}

/// Says hello and reads the partner's.
fn exchange(name: &str, control: &mut Link, mine: &Hello, partner: Role) -> Result<Hello> {
    wire::send(control, &Message::Hello(mine.clone())).map_err(|e| wire::lost(name, partner.describe(), e))?;
    match wire::receive(control).map_err(|e| wire::lost(name, partner.describe(), e))? {
        Message::Hello(h) if h.protocol == PROTOCOL => Ok(h),
        Message::Hello(h) => Err(Error::operational(format!(
            "pipe '{name}': the {} speaks pipe protocol {}, this process {PROTOCOL}; use the same swingdb version on both sides",
            partner.describe(),
            h.protocol
        ))),
        other => Err(unexpected(name, partner, &other)),
    }
}

fn unexpected(name: &str, partner: Role, message: &Message) -> Error {
    match message {
        Message::Abort { message } => {
            Error::operational(format!("pipe '{name}': the {} gave up: {message}", partner.describe()))
        }
        other => Error::operational(format!("pipe '{name}': the {} sent {other:?} out of turn", partner.describe())),
    }
}

/// The schema as an Arrow IPC stream without batches.
fn encode_schema(schema: &SchemaRef) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    StreamWriter::try_new(&mut bytes, schema)?.finish()?;
    Ok(bytes)
}

fn decode_schema(name: &str, bytes: &[u8]) -> Result<SchemaRef> {
    let reader = StreamReader::try_new(bytes, None)
        .map_err(|e| Error::operational(format!("pipe '{name}': the exporter's schema cannot be read: {e}")))?;
    Ok(reader.schema())
}

/// A socket write half that counts and (with verify) checksums what passes.
struct Counted<T> {
    inner: T,
    crc: Option<crc32fast::Hasher>,
}

/// Writes of at least this many bytes (column bodies, not metadata) are where
/// the `pipe.corrupt_stream` failpoint flips a byte.
const CORRUPTIBLE_WRITE: usize = 1 << 16;

impl<T: Write> Write for Counted<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() >= CORRUPTIBLE_WRITE && swingdb_storage::failpoint::hit("pipe.corrupt_stream").is_err() {
            // Test builds only: the byte in the middle goes out flipped, after
            // the original was counted, as a bad cable or buffer would do it.
            let mut damaged = buf.to_vec();
            damaged[buf.len() / 2] ^= 0xff;
            self.inner.write_all(&damaged)?;
            if let Some(crc) = &mut self.crc {
                crc.update(buf);
            }
            return Ok(buf.len());
        }
        let n = self.inner.write(buf)?;
        if let Some(crc) = &mut self.crc {
            crc.update(&buf[..n]);
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<T: Read> Read for Counted<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(crc) = &mut self.crc {
            crc.update(&buf[..n]);
        }
        Ok(n)
    }
}

/// Whether `name` names one file of its own in a directory: not empty, no
/// separator or NUL, not hidden (nor `.` or `..`).
fn plain_file_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 255 && !name.contains(['/', '\0']) && !name.starts_with('.')
}

/// Opens `path` for reading, refusing a symbolic link as its last
/// component, without waiting (a FIFO would wait for a writer).
fn open_no_follow(path: &Path) -> io::Result<File> {
    fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path)
}

/// The NOT NULL columns of `schema` must hold no NULL in `segment` (whose
/// statistics were computed here).
fn check_fits(pipe: &str, segment: &SegmentMeta, schema: &SchemaRef) -> Result<()> {
    for (field, stats) in schema.fields().iter().zip(&segment.stats) {
        if !field.is_nullable() && stats.nulls > 0 {
            return Err(Error::new(
                ErrorKind::Integrity,
                format!(
                    "pipe '{pipe}': {} NULLs arrived for column '{}', which is NOT NULL; nothing was imported",
                    stats.nulls,
                    field.name()
                ),
            ));
        }
    }
    Ok(())
}

/// The user of the process at the other end of `stream` (`SO_PEERCRED`).
fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    // SAFETY: ucred is plain data, filled by the kernel.
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cred.uid)
}
