//! The importing end of a transfer: [`Receiver`] and its incoming streams.

use super::*;

/// The importing end of a transfer.
pub struct Receiver {
    name: String,
    /// The control connection on one host (`None` across hosts).
    control: Option<Mutex<Link>>,
    /// The Flight client across hosts (`None` on one host).
    net: Option<Importer>,
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
    /// and learns its schema and offer; across hosts (`db://HOST:PORT/NAME`)
    /// by connecting to the exporter's address instead of the rendezvous.
    pub fn open(rendezvous: &Rendezvous, url: &PipeUrl) -> Result<Self> {
        let name = url.name.clone();
        if url.address.is_some() {
            let importer = Importer::open(url)?;
            let agreed = Agreed { streams: importer.streams(), compression: None, verify: importer.verify() };
            return Ok(Self {
                name,
                control: None,
                schema: importer.schema().clone(),
                net: Some(importer),
                offer: None,
                peer_uid: 0,
                timeout: url.timeout,
                agreed,
                workers: url.workers,
                finished: Mutex::new(false),
            });
        }
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
            control: Some(Mutex::new(control)),
            net: None,
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
        let mut control = self.control()?;
        wire::send(&mut *control, &Message::Take).map_err(|e| wire::lost(&self.name, "exporter", e))?;
        let mut segments = Vec::with_capacity(offer.segments.len());
        let mut files = Vec::with_capacity(offer.segments.len());
        let outcome = (|| {
            for claimed in &offer.segments {
                // Exporters offer no table with deleted rows: the files hold them.
                if !claimed.deleted.is_empty() {
                    return Err(Error::corruption(format!(
                        "pipe '{}': the exporter offered segment {} with rows it deleted; nothing was imported",
                        self.name, claimed.file
                    )));
                }
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
                        swingdb_storage::manifest::inline_segment::inline_segment(target.new_inline_name()?, batch)?
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
            swingdb_storage::failpoint::hit("pipe.import.after_link")?;
            target.sync_segments()
        })();
        match outcome {
            // Confirmed by the statement once it stored them (`confirm`).
            Ok(()) => Ok((segments, files)),
            Err(e) => {
                let _ = wire::send(&mut *control, &Message::Abort { message: e.message().to_string() });
                *self.finished.lock() = true;
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
    pub(crate) fn open_streams(&self) -> Result<Vec<StreamSource>> {
        if let Some(net) = &self.net {
            let verify = self.agreed.verify;
            let sources = net.sources().into_iter();
            return Ok(sources
                .map(|s| StreamSource { name: self.name.clone(), verify, wire: SourceWire::Net(Box::new(s)) })
                .collect());
        }
        let mut control = self.control()?;
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
            sources.push(StreamSource {
                name: self.name.clone(),
                verify: self.agreed.verify,
                wire: SourceWire::Socket(socket),
            });
        }
        Ok(sources)
    }

    /// Reads every stream to its end on a thread of its own: each thread
    /// makes its state with `start`, hands it each batch with `each` and
    /// ends it with `end` once its stream ended. Then compares what arrived
    /// with what the exporter sent (as [`Self::check`]); returns what `end`
    /// made, in stream order, and the rows. The exporter waits for
    /// [`Self::confirm`] (or [`Self::abort`]).
    ///
    /// The first failure (a stream that broke off or is damaged, an error of
    /// `each` or `end`, Ctrl-C) ends every stream at once and the exporter
    /// hears why. What `end` made for the other streams is dropped: it must
    /// not own anything that outlives it unnoticed (files, say).
    pub fn read_streams<S, T: Send>(
        &self,
        start: impl Fn() -> S + Sync,
        each: impl Fn(&mut S, RecordBatch) -> Result<()> + Sync,
        end: impl Fn(S) -> Result<T> + Sync,
    ) -> Result<(Vec<T>, u64)> {
        let sources = self.open_streams()?;
        let sockets = sources.iter().map(|s| s.shutdown_handle()).collect::<Result<Vec<_>>>()?;
        let end_all = || sockets.iter().for_each(StreamStop::stop);
        // Per stream: its outcome, and whether a failure came from this side
        // (`each`, `end`) rather than from the stream.
        let (done, finished) = std::sync::mpsc::channel::<bool>();
        let (outcomes, stopped) = std::thread::scope(|scope| {
            let threads: Vec<_> = sources
                .into_iter()
                .map(|source| {
                    let (done, start, each, end) = (done.clone(), &start, &each, &end);
                    scope.spawn(move || {
                        let mut state = start();
                        let mut failure = None;
                        let read = source.read_all(|batch| match each(&mut state, batch) {
                            Ok(()) => true,
                            Err(e) => {
                                failure = Some(e);
                                false
                            }
                        });
                        let outcome = match (read, failure) {
                            (_, Some(ours)) => Err((ours, true)),
                            (Err(theirs), None) => Err((theirs, false)),
                            (Ok(counts), None) => {
                                let counts = counts.expect("each stops a stream only by failing");
                                end(state).map(|made| (made, counts)).map_err(|e| (e, true))
                            }
                        };
                        let _ = done.send(outcome.is_ok());
                        outcome
                    })
                })
                .collect();
            // Threads block on their sockets: Ctrl-C, or one stream failing,
            // ends them all.
            let mut stopped = false;
            let mut failed = false;
            for _ in 0..threads.len() {
                loop {
                    match finished.recv_timeout(std::time::Duration::from_millis(25)) {
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                            if !stopped && swingdb_storage::signal::stop_requested() {
                                stopped = true;
                                end_all();
                            }
                        }
                        Ok(ok) => {
                            if !ok && !failed {
                                failed = true;
                                end_all();
                            }
                            break;
                        }
                        Err(_) => break,
                    }
                }
            }
            let outcomes: Vec<_> = threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|_| Err((Error::internal("a pipe reader panicked"), true))))
                .collect();
            (outcomes, stopped)
        });
        if stopped {
            let e = Error::new(ErrorKind::Interrupted, format!("pipe '{}': interrupted while receiving", self.name));
            self.abort(e.message());
            return Err(e);
        }
        let mut made = Vec::with_capacity(outcomes.len());
        let mut received = Vec::with_capacity(outcomes.len());
        // The first failure to report: one of this side's, else the stream's
        // (which others' may only have caused by ending the streams).
        let first =
            outcomes.iter().position(|o| matches!(o, Err((_, true)))).or(outcomes.iter().position(Result::is_err));
        if let Some(at) = first {
            let Some(Err((e, ours))) = outcomes.into_iter().nth(at) else { unreachable!("a failure") };
            let e = if ours { e } else { self.explain(e) };
            self.abort(e.message());
            return Err(e);
        }
        for outcome in outcomes {
            let (m, counts) = outcome.unwrap_or_else(|_| unreachable!("no failure"));
            made.push(m);
            received.push(counts);
        }
        let rows = self.check(&received)?;
        Ok((made, rows))
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
        let (rows, crc32) = match &self.net {
            // Across hosts, each stream's trailer said what was sent on it.
            Some(net) => net.sent()?.into_iter().unzip(),
            None => {
                let mut control = self.control()?;
                let lost = |e| wire::lost(&self.name, "exporter", e);
                match wire::receive(&mut *control).map_err(lost)? {
                    Message::Sent { rows, crc32 } => (rows, crc32),
                    other => return Err(unexpected(&self.name, Role::Export, &other)),
                }
            }
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
            self.abort(&p);
            return Err(Error::new(ErrorKind::Operational, format!("pipe '{}': {p}; nothing was imported", self.name)));
        }
        Ok(rows.iter().sum())
    }

    /// Tells the exporter that `rows` rows were imported: the importing
    /// statement stored them (and committed, outside a transaction).
    pub fn confirm(&self, rows: u64) -> Result<()> {
        if let Some(net) = &self.net {
            swingdb_storage::failpoint::hit("pipe.import.before_done")?;
            *self.finished.lock() = true;
            return net.confirm(rows);
        }
        let mut control = self.control()?;
        swingdb_storage::failpoint::hit("pipe.import.before_done")?;
        *self.finished.lock() = true;
        wire::send(&mut *control, &Message::Done { rows }).map_err(|e| wire::lost(&self.name, "exporter", e))
    }

    /// The error to report for `failure` (a stream that broke off): the
    /// exporter's own reason if it sent one, else `failure` (at once when
    /// the user stopped the transfer).
    pub fn explain(&self, failure: Error) -> Error {
        if failure.kind() == ErrorKind::Interrupted {
            return failure;
        }
        // Across hosts, the exporter's reason ends its streams.
        let Some(Some(mut control)) = self.control.as_ref().map(Mutex::try_lock) else { return failure };
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
        let mut finished = self.finished.lock();
        if *finished {
            return;
        }
        *finished = true;
        if let Some(net) = &self.net {
            net.abort(why);
        }
        if let Some(Some(mut control)) = self.control.as_ref().map(Mutex::try_lock) {
            let _ = wire::send(&mut *control, &Message::Abort { message: why.to_string() });
            let _ = control.socket().shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Receiver {
    /// The control connection of a transfer on one host.
    fn control(&self) -> Result<parking_lot::MutexGuard<'_, Link>> {
        let control =
            self.control.as_ref().ok_or_else(|| Error::internal("a pipe across hosts has no control connection"))?;
        Ok(control.lock())
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.abort("the importing statement ended before it read the whole pipe (it failed, was cancelled or needed only some rows)");
    }
}

/// One incoming stream of rows.
pub(crate) struct StreamSource {
    name: String,
    verify: bool,
    wire: SourceWire,
}

/// What a stream's rows arrive on.
enum SourceWire {
    /// An Arrow IPC stream on a socket of this host.
    Socket(Link),
    /// A Flight stream from another host.
    Net(Box<NetSource>),
}

/// Ends one stream from another thread.
#[derive(Debug)]
pub enum StreamStop {
    /// Shuts the stream's socket down.
    Socket(UnixStream),
    /// Raises the stream's stop flag, which its reader checks as it waits.
    Net(std::sync::Arc<std::sync::atomic::AtomicBool>),
}

impl StreamStop {
    /// Ends the stream: its reader fails at once.
    pub fn stop(&self) {
        match self {
            StreamStop::Socket(socket) => drop(socket.shutdown(std::net::Shutdown::Both)),
            StreamStop::Net(flag) => flag.store(true, std::sync::atomic::Ordering::Release),
        }
    }
}

impl StreamSource {
    /// A handle that can end the stream from another thread.
    pub fn shutdown_handle(&self) -> Result<StreamStop> {
        match &self.wire {
            SourceWire::Socket(socket) => {
                Ok(StreamStop::Socket(socket.socket().try_clone().map_err(|e| Error::io("cloning a data socket", e))?))
            }
            SourceWire::Net(source) => Ok(StreamStop::Net(source.stop_flag())),
        }
    }

    /// Reads the stream to its end, handing each batch to `each` (which
    /// returns false to stop early: then `None`). Returns rows and the CRC-32
    /// of the bytes read (0 without verify).
    pub fn read_all(self, mut each: impl FnMut(RecordBatch) -> bool) -> Result<Option<(u64, u32)>> {
        let name = self.name.clone();
        let socket = match self.wire {
            SourceWire::Socket(socket) => socket,
            SourceWire::Net(source) => return (*source).read_all(each),
        };
        let counted = Counted { inner: socket, crc: self.verify.then(crc32fast::Hasher::new) };
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
