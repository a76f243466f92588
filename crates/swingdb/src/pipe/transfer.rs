//! The two ends of one transfer over the control connection (see [`super::wire`]):
//! [`Sender`] (the exporter) and [`Receiver`] (the importer), and the Arrow IPC
//! streams between them.

use super::link::{is_stopped, Link};
use super::rendezvous::Rendezvous;
use super::url::{Compression, PipeUrl};
use super::wire::{self, Hello, Message, Offer, PROTOCOL};
use super::Role;
use crate::error::{Error, ErrorKind, Result};
use crate::storage::files::create_private_file;
use crate::storage::segment::describe_untrusted;
use crate::storage::{DbDir, SegmentMeta};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::{IpcWriteOptions, StreamWriter};
use datafusion::arrow::ipc::CompressionType;
use std::fs;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
        if buf.len() >= CORRUPTIBLE_WRITE && super::failpoint_hit("pipe.corrupt_stream").is_err() {
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

/// The exporting end of a transfer.
pub struct Sender {
    name: String,
    control: Link,
    agreed: Agreed,
    take: bool,
    data: Vec<UnixStream>,
    /// Longest silence accepted from the importer (see [`Link`]).
    timeout: Option<std::time::Duration>,
}

impl Sender {
    /// Meets the importer of `url` (waiting for it up to the URL's timeout),
    /// offering `offer` (stored segments of exactly `schema`) if given, and
    /// waits for what the importer wants: the segments or streams.
    pub fn open(rendezvous: &Rendezvous, url: &PipeUrl, schema: &SchemaRef, offer: Option<Offer>) -> Result<Self> {
        let name = url.name.clone();
        let met = rendezvous.meet(&name, Role::Export, url.timeout)?;
        let mut control = Link::new(met.stream, url.timeout).map_err(|e| Error::io(format!("pipe '{name}'"), e))?;
        let mine = hello(url, encode_schema(schema)?, offer);
        let theirs = exchange(&name, &mut control, &mine, Role::Import)?;
        let agreed = agree(&mine, &theirs);
        super::failpoint_hit("pipe.export.after_hello")?;
        let take = match wire::receive(&mut control).map_err(|e| wire::lost(&name, "importer", e))? {
            Message::Take if mine.offer.is_some() => true,
            Message::Stream => false,
            other => return Err(unexpected(&name, Role::Import, &other)),
        };
        Ok(Self { name, control, agreed, take, data: Vec::new(), timeout: url.timeout })
    }

    /// Whether the importer takes the offered segment files (then call
    /// [`Sender::finish_handover`]); otherwise call [`Sender::open_streams`].
    pub fn handing_over(&self) -> bool {
        self.take
    }

    /// Waits while the importer links the offered segments; the rows it took.
    /// The caller keeps the segments alive (pinned) until this returns.
    pub fn finish_handover(mut self) -> Result<u64> {
        self.await_done()
    }

    /// Creates the data sockets, hands the importer its ends and returns one
    /// writer per stream.
    pub fn open_streams(&mut self, schema: &SchemaRef) -> Result<Vec<StreamSink>> {
        let n = self.agreed.streams;
        let mut ours = Vec::with_capacity(n);
        let mut theirs = Vec::with_capacity(n);
        for _ in 0..n {
            let (a, b) = UnixStream::pair()
                .map_err(|e| Error::io(format!("pipe '{}': creating a data socket", self.name), e))?;
            ours.push(Link::new(a, self.timeout).map_err(|e| Error::io(format!("pipe '{}'", self.name), e))?);
            theirs.push(b);
        }
        wire::send(&mut self.control, &Message::Sockets { count: n })
            .map_err(|e| wire::lost(&self.name, "importer", e))?;
        let fds: Vec<_> = theirs.iter().map(|s| s.as_raw_fd()).collect();
        wire::send_fds(&self.control, &fds).map_err(|e| wire::lost(&self.name, "importer", e))?;
        drop(theirs);
        let mut options = IpcWriteOptions::default();
        if let Some(c) = self.agreed.compression {
            let kind = if c == Compression::Lz4 { CompressionType::LZ4_FRAME } else { CompressionType::ZSTD };
            options = options.try_with_compression(Some(kind))?;
        }
        let mut sinks = Vec::with_capacity(n);
        for socket in ours {
            self.data.push(socket.socket().try_clone().map_err(|e| Error::io("cloning a data socket", e))?);
            let counted = Counted { inner: socket, crc: self.agreed.verify.then(crc32fast::Hasher::new) };
            let writer = StreamWriter::try_new_with_options(
                BufWriter::with_capacity(STREAM_BUFFER, counted),
                schema,
                options.clone(),
            )?;
            sinks.push(StreamSink { name: self.name.clone(), writer, rows: 0 });
        }
        Ok(sinks)
    }

    /// After every stream was closed: tells the importer what was sent and
    /// waits for it to confirm; the rows transferred.
    pub fn finish(mut self, sent: Vec<(u64, u32)>) -> Result<u64> {
        let (rows, crc32): (Vec<u64>, Vec<u32>) = sent.into_iter().unzip();
        let crc32 = if self.agreed.verify { crc32 } else { Vec::new() };
        super::failpoint_hit("pipe.export.before_sent")?;
        wire::send(&mut self.control, &Message::Sent { rows, crc32 })
            .map_err(|e| wire::lost(&self.name, "importer", e))?;
        self.await_done()
    }

    /// The error to report for `failure` (a stream that could not be
    /// written): the importer's own reason if it sent one, else `failure`
    /// (at once when the user stopped the transfer).
    pub fn explain(&mut self, failure: Error) -> Error {
        if failure.kind() == ErrorKind::Interrupted {
            return failure;
        }
        self.control.set_patience(Some(std::time::Duration::from_secs(1)));
        match wire::receive(&mut self.control) {
            Ok(Message::Abort { message }) => {
                Error::operational(format!("pipe '{}': the importer gave up: {message}", self.name))
            }
            _ => failure,
        }
    }

    /// Gives up: tells the importer why and ends every stream at once.
    pub fn abort(mut self, why: &str) {
        let _ = wire::send(&mut self.control, &Message::Abort { message: why.to_string() });
        self.end_streams();
    }

    /// Ends every stream at once (from any thread): their blocked writes fail.
    pub fn end_streams(&self) {
        for s in &self.data {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    fn await_done(&mut self) -> Result<u64> {
        match wire::receive(&mut self.control).map_err(|e| wire::lost(&self.name, "importer", e))? {
            Message::Done { rows } => Ok(rows),
            other => Err(unexpected(&self.name, Role::Import, &other)),
        }
    }
}

/// One outgoing Arrow IPC stream.
pub struct StreamSink {
    name: String,
    writer: StreamWriter<BufWriter<Counted<Link>>>,
    rows: u64,
}

impl StreamSink {
    /// Sends `batch` (blocks while the importer is behind: backpressure).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.rows += batch.num_rows() as u64;
        self.writer.write(batch).map_err(|e| self.failed(e))
    }

    /// Ends the stream; its rows and the CRC-32 of its bytes (0 without verify).
    pub fn close(mut self) -> Result<(u64, u32)> {
        self.writer.finish().map_err(|e| self.failed(e))?;
        let buffered = self.writer.into_inner().map_err(Error::from)?;
        let counted = buffered.into_inner().map_err(|e| wire::lost(&self.name, "importer", e.into_error()))?;
        Ok((self.rows, counted.crc.map_or(0, |c| c.finalize())))
    }

    fn failed(&self, e: ArrowError) -> Error {
        match e {
            ArrowError::IoError(_, e) => wire::lost(&self.name, "importer", e),
            e => e.into(),
        }
    }
}

/// The importing end of a transfer.
pub struct Receiver {
    name: String,
    control: Mutex<Link>,
    schema: SchemaRef,
    offer: Option<Offer>,
    /// The exporter's user, from the kernel: offered files must be its own.
    peer_uid: u32,
    /// Longest silence accepted from the exporter (see [`Link`]).
    timeout: Option<std::time::Duration>,
    agreed: Agreed,
    workers: usize,
    finished: Mutex<bool>,
}

impl std::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").field("pipe", &self.name).field("streams", &self.agreed.streams).finish()
    }
}

impl Receiver {
    /// Meets the exporter of `url` (waiting for it up to the URL's timeout)
    /// and learns its schema and offer.
    pub fn open(rendezvous: &Rendezvous, url: &PipeUrl) -> Result<Self> {
        let name = url.name.clone();
        let met = rendezvous.meet(&name, Role::Import, url.timeout)?;
        let mut control = Link::new(met.stream, url.timeout).map_err(|e| Error::io(format!("pipe '{name}'"), e))?;
        let mine = hello(url, Vec::new(), None);
        let theirs = exchange(&name, &mut control, &mine, Role::Export)?;
        let schema = decode_schema(&name, &theirs.schema)?;
        let agreed = agree(&theirs, &mine);
        let peer_uid = peer_uid(control.socket())
            .map_err(|e| Error::io(format!("pipe '{name}': asking who the exporter is"), e))?;
        Ok(Self {
            name,
            control: Mutex::new(control),
            schema,
            offer: theirs.offer,
            peer_uid,
            timeout: url.timeout,
            agreed,
            workers: url.workers,
            finished: Mutex::new(false),
        })
    }

    /// The pipe's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The schema of the rows coming.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Streams this side reads in parallel (partitions of its scan).
    pub fn workers(&self) -> usize {
        self.workers.min(self.agreed.streams)
    }

    /// Whether the exporter offers its stored segments as files.
    pub fn offers_segments(&self) -> bool {
        self.offer.is_some()
    }

    /// NULLs the offered segments hold in column `column` (`None` without statistics).
    pub fn offered_nulls(&self, column: usize) -> Option<u64> {
        let offer = self.offer.as_ref()?;
        offer.segments.iter().map(|s| s.stats.get(column).map(|c| c.nulls)).sum()
    }

    /// Takes the offered segments into `target` as rows of a table shaped
    /// `schema`: each file is hard-linked under a new name of `target`'s
    /// (copied when the two are on different filesystems). Returns their
    /// metadata under the new names and the new files (the caller's
    /// transaction deletes them if it does not commit). The exporter hears
    /// of it from [`Self::confirm`], once the statement stored them.
    ///
    /// What the exporter says is untrusted input (see [`take_one`]): only
    /// which files it offers, by plain name in its own `segments/`, is
    /// taken from it; their size, checksums, rows and statistics are
    /// computed here from the bytes, and a claim that differs fails the import.
    pub fn take_segments(&self, target: &DbDir, schema: &SchemaRef) -> Result<(Vec<SegmentMeta>, Vec<PathBuf>)> {
        let offer = self.offer.as_ref().ok_or_else(|| Error::internal("no segments were offered"))?;
        let mut control = self.control.lock().unwrap();
        wire::send(&mut *control, &Message::Take).map_err(|e| wire::lost(&self.name, "exporter", e))?;
        let mut segments = Vec::with_capacity(offer.segments.len());
        let mut files = Vec::with_capacity(offer.segments.len());
        let outcome = (|| {
            for claimed in &offer.segments {
                let segment = match &claimed.inline {
                    // Its rows came with the offer; its statistics are taken anew from them.
                    Some(rows) => {
                        let types =
                            |s: &SchemaRef| s.fields().iter().map(|f| f.data_type().clone()).collect::<Vec<_>>();
                        if types(rows.schema()) != types(&self.schema) {
                            return Err(Error::corruption(format!(
                                "pipe '{}': the exporter offered rows of other column types than its schema's; nothing was imported",
                                self.name
                            )));
                        }
                        let batch = datafusion::arrow::compute::concat_batches(rows.schema(), rows.batches())?;
                        crate::storage::inline_segment::inline_segment(target.new_inline_name()?, batch)?
                    }
                    None => {
                        let to = target.new_segment_path()?;
                        // Owned by the cleanup list from before its first byte.
                        files.push(to.clone());
                        self.take_one(&offer.dir, claimed, &to)?
                    }
                };
                check_fits(&self.name, &segment, schema)?;
                segments.push(segment);
            }
            super::failpoint_hit("pipe.import.after_link")?;
            target.sync_segments()
        })();
        match outcome {
            // Confirmed by the statement once it stored them (`confirm`).
            Ok(()) => Ok((segments, files)),
            Err(e) => {
                let _ = wire::send(&mut *control, &Message::Abort { message: e.message().to_string() });
                *self.finished.lock().unwrap() = true;
                for f in &files {
                    let _ = fs::remove_file(f);
                }
                Err(e)
            }
        }
    }

    /// Takes the offered segment `claimed` from the exporter's segments
    /// directory `dir` as the new file `to`, and returns its metadata as its
    /// bytes say. Refused: a name that is not one plain file name (`../x`,
    /// `a/b`, `.x`), a symbolic link, anything but a regular file, a file
    /// whose owner is not the exporter's user, a file that is not a valid
    /// segment of the pipe's columns, and one whose size or checksum is not
    /// what the exporter said.
    fn take_one(&self, dir: &Path, claimed: &SegmentMeta, to: &Path) -> Result<SegmentMeta> {
        let refuse = |why: String| {
            Error::corruption(format!("pipe '{}': the exporter offered {why}; nothing was imported", self.name))
        };
        if !plain_file_name(&claimed.file) {
            return Err(refuse(format!("the file name {:?}, which is not a segment's", claimed.file)));
        }
        let from = dir.join(&claimed.file);
        let opened = |path: &Path| -> Result<File> {
            let file = match open_no_follow(path) {
                Ok(f) => f,
                Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                    return Err(refuse(format!("{}, a symbolic link", from.display())))
                }
                Err(e) => return Err(Error::io(format!("pipe '{}': opening {}", self.name, path.display()), e)),
            };
            let meta = file
                .metadata()
                .map_err(|e| Error::io(format!("pipe '{}': inspecting {}", self.name, path.display()), e))?;
            if !meta.is_file() {
                return Err(refuse(format!("{}, which is not a regular file", from.display())));
            }
            if meta.uid() != self.peer_uid {
                return Err(refuse(format!(
                    "{}, owned by user {} and not by the exporter's ({})",
                    from.display(),
                    meta.uid(),
                    self.peer_uid
                )));
            }
            Ok(file)
        };
        // link() makes a link to a symbolic link itself, never to its target;
        // the O_NOFOLLOW open refuses it. The link is ours (in our private
        // directory): nobody can put another file under its name meanwhile.
        let file = match fs::hard_link(&from, to) {
            Ok(()) => opened(to)?,
            Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {
                let mut source = opened(&from)?;
                let mut copy = create_private_file(to)
                    .map_err(|e| Error::io(format!("pipe '{}': creating {}", self.name, to.display()), e))?;
                io::copy(&mut source, &mut copy)
                    .map_err(|e| Error::io(format!("pipe '{}': copying {}", self.name, from.display()), e))?;
                copy
            }
            Err(e) => {
                return Err(Error::io(
                    format!("pipe '{}': linking {} to {}", self.name, from.display(), to.display()),
                    e,
                ))
            }
        };
        let name = to.file_name().and_then(|f| f.to_str()).expect("segment names are UTF-8");
        let found = describe_untrusted(&file, name, &self.schema)?;
        if found.bytes != claimed.bytes || found.crc32 != claimed.crc32 || found.rows != claimed.rows {
            return Err(refuse(format!(
                "segment {} as {} rows, {} bytes with CRC-32 {:08x}, but it holds {} rows, {} bytes with CRC-32 {:08x}",
                from.display(),
                claimed.rows,
                claimed.bytes,
                claimed.crc32,
                found.rows,
                found.bytes,
                found.crc32
            )));
        }
        Ok(found)
    }

    /// Asks for the rows as streams; one reader per stream.
    pub fn open_streams(&self) -> Result<Vec<StreamSource>> {
        let mut control = self.control.lock().unwrap();
        wire::send(&mut *control, &Message::Stream).map_err(|e| wire::lost(&self.name, "exporter", e))?;
        let count = match wire::receive(&mut *control).map_err(|e| wire::lost(&self.name, "exporter", e))? {
            Message::Sockets { count } if count == self.agreed.streams => count,
            other => return Err(unexpected(&self.name, Role::Export, &other)),
        };
        let fds = wire::receive_fds(&control, count).map_err(|e| wire::lost(&self.name, "exporter", e))?;
        let mut sources = Vec::with_capacity(fds.len());
        for fd in fds {
            let socket = UnixStream::from(fd);
            let socket = Link::new(socket, self.timeout).map_err(|e| Error::io(format!("pipe '{}'", self.name), e))?;
            sources.push(StreamSource { name: self.name.clone(), socket, verify: self.agreed.verify });
        }
        Ok(sources)
    }

    /// After every stream ended: compares what arrived (rows and CRC-32 per
    /// stream, in stream order) with what the exporter says it sent, and
    /// confirms (or refuses) the transfer. The rows transferred.
    pub fn finish(&self, received: &[(u64, u32)]) -> Result<u64> {
        let rows = self.check(received)?;
        self.confirm(rows)?;
        Ok(rows)
    }

    /// The first half of [`Self::finish`]: compares what arrived with what
    /// the exporter sent and refuses the transfer if they differ. The
    /// exporter keeps waiting until [`Self::confirm`] or [`Self::abort`].
    pub fn check(&self, received: &[(u64, u32)]) -> Result<u64> {
        let mut control = self.control.lock().unwrap();
        let lost = |e| wire::lost(&self.name, "exporter", e);
        let (rows, crc32) = match wire::receive(&mut *control).map_err(lost)? {
            Message::Sent { rows, crc32 } => (rows, crc32),
            other => return Err(unexpected(&self.name, Role::Export, &other)),
        };
        let got_rows: Vec<u64> = received.iter().map(|r| r.0).collect();
        let mut problem = None;
        if got_rows != rows {
            problem = Some(format!(
                "{} rows were sent but {} arrived (per stream: sent {rows:?}, received {got_rows:?})",
                rows.iter().sum::<u64>(),
                got_rows.iter().sum::<u64>()
            ));
        } else if self.agreed.verify {
            let got_crc: Vec<u32> = received.iter().map(|r| r.1).collect();
            if got_crc != crc32 {
                problem = Some(format!("the checksums of what was sent and what arrived differ (sent {crc32:08x?}, received {got_crc:08x?})"));
            }
        }
        if let Some(p) = problem {
            *self.finished.lock().unwrap() = true;
            let _ = wire::send(&mut *control, &Message::Abort { message: p.clone() });
            return Err(Error::new(ErrorKind::Operational, format!("pipe '{}': {p}; nothing was imported", self.name)));
        }
        Ok(rows.iter().sum())
    }

    /// Tells the exporter that `rows` rows were imported: the importing
    /// statement stored them (and committed, outside a transaction).
    pub fn confirm(&self, rows: u64) -> Result<()> {
        let mut control = self.control.lock().unwrap();
        super::failpoint_hit("pipe.import.before_done")?;
        *self.finished.lock().unwrap() = true;
        wire::send(&mut *control, &Message::Done { rows }).map_err(|e| wire::lost(&self.name, "exporter", e))
    }

    /// The error to report for `failure` (a stream that broke off): the
    /// exporter's own reason if it sent one, else `failure` (at once when
    /// the user stopped the transfer).
    pub fn explain(&self, failure: Error) -> Error {
        if failure.kind() == ErrorKind::Interrupted {
            return failure;
        }
        let Ok(mut control) = self.control.try_lock() else { return failure };
        control.set_patience(Some(std::time::Duration::from_secs(1)));
        let reason = wire::receive(&mut *control);
        control.set_patience(self.timeout);
        match reason {
            Ok(Message::Abort { message }) => Error::operational(format!(
                "pipe '{}': the exporter gave up: {message}; nothing was imported",
                self.name
            )),
            _ => failure,
        }
    }

    /// Gives up (the importing statement failed or stopped reading), unless
    /// the transfer already finished.
    pub fn abort(&self, why: &str) {
        let mut finished = self.finished.lock().unwrap();
        if *finished {
            return;
        }
        *finished = true;
        if let Ok(mut control) = self.control.try_lock() {
            let _ = wire::send(&mut *control, &Message::Abort { message: why.to_string() });
            let _ = control.socket().shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.abort("the importing statement ended before it read the whole pipe (it failed, was cancelled or needed only some rows)");
    }
}

/// One incoming Arrow IPC stream.
pub struct StreamSource {
    name: String,
    socket: Link,
    verify: bool,
}

impl StreamSource {
    /// A handle that can end the stream from another thread.
    pub fn shutdown_handle(&self) -> Result<UnixStream> {
        self.socket.socket().try_clone().map_err(|e| Error::io("cloning a data socket", e))
    }

    /// Reads the stream to its end, handing each batch to `each` (which
    /// returns false to stop early: then `None`). Returns rows and the CRC-32
    /// of the bytes read (0 without verify).
    pub fn read_all(self, mut each: impl FnMut(RecordBatch) -> bool) -> Result<Option<(u64, u32)>> {
        let name = self.name.clone();
        let counted = Counted { inner: self.socket, crc: self.verify.then(crc32fast::Hasher::new) };
        let damaged = |e: ArrowError| match e {
            ArrowError::IoError(_, e) if matches!(e.kind(), io::ErrorKind::TimedOut) || is_stopped(&e) => {
                wire::lost(&name, "exporter", e)
            }
            e => Error::operational(format!(
                "pipe '{name}': a data stream broke off or is damaged ({e}); nothing was imported"
            )),
        };
        let mut reader =
            StreamReader::try_new(BufReader::with_capacity(STREAM_BUFFER, counted), None).map_err(damaged)?;
        let mut rows = 0;
        for batch in reader.by_ref() {
            let batch = batch.map_err(damaged)?;
            rows += batch.num_rows() as u64;
            if !each(batch) {
                return Ok(None);
            }
        }
        let crc = reader.get_mut().get_mut().crc.take().map_or(0, |c| c.finalize());
        Ok(Some((rows, crc)))
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
