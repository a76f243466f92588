//! The exporting end of a transfer: [`Sender`] and its outgoing streams.

use super::*;

/// The exporting end of a transfer.
pub struct Sender {
    name: String,
    /// The control connection on one host (`None` across hosts).
    control: Option<Link>,
    /// The Flight service across hosts (`None` on one host).
    net: Option<Exporter>,
    agreed: Agreed,
    take: bool,
    data: Vec<UnixStream>,
    /// Longest silence accepted from the importer (see [`Link`]).
    timeout: Option<std::time::Duration>,
}

impl Sender {
    /// Meets the importer of `url` (waiting for it up to the URL's timeout),
    /// offering `offer` (stored segments of exactly `schema`) if given, and
    /// waits for what the importer wants: the segments or streams. A pipe
    /// across hosts (`db://HOST:PORT/NAME`) listens there instead of at the
    /// rendezvous and always streams.
    pub fn open(rendezvous: &Rendezvous, url: &PipeUrl, schema: &SchemaRef, offer: Option<Offer>) -> Result<Self> {
        let name = url.name.clone();
        if url.address.is_some() {
            let exporter = Exporter::open(url, schema)?;
            let agreed = Agreed { streams: exporter.streams(), compression: None, verify: false };
            return Ok(Self {
                name,
                control: None,
                net: Some(exporter),
                agreed,
                take: false,
                data: Vec::new(),
                timeout: url.timeout,
            });
        }
        let met = rendezvous.meet(&name, Role::Export, url.timeout)?;
        let mut control = Link::new(met.stream, url.timeout).map_err(|e| Error::io(format!("pipe '{name}'"), e))?;
        let mine = hello(url, encode_schema(schema)?, offer);
        let theirs = exchange(&name, &mut control, &mine, Role::Import)?;
        let agreed = agree(&mine, &theirs);
        swingdb_storage::failpoint::hit("pipe.export.after_hello")?;
        let take = match wire::receive(&mut control).map_err(|e| wire::lost(&name, "importer", e))? {
            Message::Take if mine.offer.is_some() => true,
            Message::Stream => false,
            other => return Err(unexpected(&name, Role::Import, &other)),
        };
        Ok(Self { name, control: Some(control), net: None, agreed, take, data: Vec::new(), timeout: url.timeout })
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
        if let Some(net) = &self.net {
            let sinks = net.sinks().into_iter().map(|sink| StreamSink { rows: 0, wire: SinkWire::Net(sink) });
            return Ok(sinks.collect());
        }
        let n = self.agreed.streams;
        let mut ours = Vec::with_capacity(n);
        let mut theirs = Vec::with_capacity(n);
        for _ in 0..n {
            let (a, b) = UnixStream::pair()
                .map_err(|e| Error::io(format!("pipe '{}': creating a data socket", self.name), e))?;
            ours.push(Link::new(a, self.timeout).map_err(|e| Error::io(format!("pipe '{}'", self.name), e))?);
            theirs.push(b);
        }
        let control = self.control.as_mut().expect("a local transfer has a control connection");
        wire::send(control, &Message::Sockets { count: n }).map_err(|e| wire::lost(&self.name, "importer", e))?;
        let fds: Vec<_> = theirs.iter().map(|s| s.as_raw_fd()).collect();
        wire::send_fds(control, &fds).map_err(|e| wire::lost(&self.name, "importer", e))?;
        drop(theirs);
        let options = Compression::ipc_options(self.agreed.compression)?;
        let mut sinks = Vec::with_capacity(n);
        for socket in ours {
            self.data.push(socket.socket().try_clone().map_err(|e| Error::io("cloning a data socket", e))?);
            let counted = Counted { inner: socket, crc: self.agreed.verify.then(crc32fast::Hasher::new) };
            let writer = StreamWriter::try_new_with_options(
                BufWriter::with_capacity(STREAM_BUFFER, counted),
                schema,
                options.clone(),
            )?;
            sinks.push(StreamSink {
                rows: 0,
                wire: SinkWire::Socket { name: self.name.clone(), writer: Box::new(writer) },
            });
        }
        Ok(sinks)
    }

    /// After every stream was closed: tells the importer what was sent and
    /// waits for it to confirm; the rows transferred.
    pub fn finish(mut self, sent: Vec<(u64, u32)>) -> Result<u64> {
        if let Some(net) = &self.net {
            swingdb_storage::failpoint::hit("pipe.export.before_sent")?;
            return net.finish(sent.iter().map(|s| s.0).sum());
        }
        let (rows, crc32): (Vec<u64>, Vec<u32>) = sent.into_iter().unzip();
        let crc32 = if self.agreed.verify { crc32 } else { Vec::new() };
        swingdb_storage::failpoint::hit("pipe.export.before_sent")?;
        let control = self.control.as_mut().expect("a local transfer has a control connection");
        wire::send(control, &Message::Sent { rows, crc32 }).map_err(|e| wire::lost(&self.name, "importer", e))?;
        self.await_done()
    }

    /// The error to report for `failure` (a stream that could not be
    /// written): the importer's own reason if it sent one, else `failure`
    /// (at once when the user stopped the transfer).
    pub fn explain(&mut self, failure: Error) -> Error {
        if failure.kind() == ErrorKind::Interrupted {
            return failure;
        }
        let Some(control) = self.control.as_mut() else {
            return match &self.net {
                Some(net) => net.explain(failure),
                None => failure,
            };
        };
        control.set_patience(Some(std::time::Duration::from_secs(1)));
        match wire::receive(control) {
            Ok(Message::Abort { message }) => {
                Error::operational(format!("pipe '{}': the importer gave up: {message}", self.name))
            }
            _ => failure,
        }
    }

    /// Gives up: tells the importer why and ends every stream at once.
    pub fn abort(mut self, why: &str) {
        if let Some(net) = &self.net {
            net.abort(why);
        }
        if let Some(control) = self.control.as_mut() {
            let _ = wire::send(control, &Message::Abort { message: why.to_string() });
        }
        self.end_streams();
    }

    /// Ends every stream at once (from any thread): their blocked writes fail.
    pub fn end_streams(&self) {
        if let Some(net) = &self.net {
            net.end_streams();
        }
        for s in &self.data {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }

    fn await_done(&mut self) -> Result<u64> {
        let control = self.control.as_mut().expect("a local transfer has a control connection");
        match wire::receive(control).map_err(|e| wire::lost(&self.name, "importer", e))? {
            Message::Done { rows } => Ok(rows),
            other => Err(unexpected(&self.name, Role::Import, &other)),
        }
    }
}

/// One outgoing stream of rows.
pub struct StreamSink {
    rows: u64,
    wire: SinkWire,
}

/// What a stream's rows travel on.
enum SinkWire {
    /// An Arrow IPC stream on a socket of this host.
    Socket { name: String, writer: Box<StreamWriter<BufWriter<Counted<Link>>>> },
    /// A Flight stream to another host (its trailer carries rows and checksum).
    Net(NetSink),
}

impl StreamSink {
    /// Sends `batch` (blocks while the importer is behind: backpressure).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.rows += batch.num_rows() as u64;
        match &mut self.wire {
            SinkWire::Socket { name, writer } => writer.write(batch).map_err(|e| failed(name, e)),
            SinkWire::Net(sink) => sink.write(batch),
        }
    }

    /// Ends the stream; its rows and the CRC-32 of its bytes (0 without
    /// verify, and across hosts, where the stream's trailer carries it).
    pub fn close(self) -> Result<(u64, u32)> {
        match self.wire {
            SinkWire::Socket { name, mut writer } => {
                writer.finish().map_err(|e| failed(&name, e))?;
                let buffered = writer.into_inner().map_err(Error::from)?;
                let counted = buffered.into_inner().map_err(|e| wire::lost(&name, "importer", e.into_error()))?;
                Ok((self.rows, counted.crc.map_or(0, |c| c.finalize())))
            }
            SinkWire::Net(sink) => Ok((sink.close()?, 0)),
        }
    }
}

fn failed(name: &str, e: ArrowError) -> Error {
    match e {
        ArrowError::IoError(_, e) => wire::lost(name, "importer", e),
        e => e.into(),
    }
}
