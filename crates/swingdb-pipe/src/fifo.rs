//! The text shim for systems that can only write or read files: a named pipe
//! (FIFO) at a path they are told to use, bridged to a swingdb pipe.
//!
//! - [`fifo_in`]: another program writes CSV (or JSON lines) "to a file" at
//!   PATH; each batch is parsed to Arrow as it arrives and sent into pipe
//!   NAME. Nothing touches the disk.
//! - [`fifo_out`]: the rows of pipe NAME are written as CSV into PATH, where
//!   another program reads them "from a file".
//!
//! A FIFO hides whether its writer finished or died: both look like the end
//! of the file. So the shim refuses what an intact file cannot be: no bytes at
//! all (not even a header), or a last line without its newline (the writer
//! stopped in the middle of a row). A FIFO nobody opens within the timeout is
//! an error too; in every failure the importer's statement fails and keeps
//! nothing. The FIFO is created private (0600), fails if PATH exists, and is
//! removed afterwards.

use super::url::PipeUrl;
use super::writer::PipeWriter;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::csv;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::json;
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Cursor, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use swingdb_storage::error::{Error, Result};

/// Text formats the shim speaks.
///
/// ```edition2024
/// use swingdb_pipe::TextFormat;
/// assert!(TextFormat::parse("csv").is_ok());
/// assert!(TextFormat::parse("xml").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    /// Comma-separated values with a header line.
    Csv,
    /// One JSON object per line.
    JsonLines,
}

impl TextFormat {
    /// Parses `csv` or `jsonl` (also `json`, `ndjson`).
    pub fn parse(text: &str) -> Result<Self> {
        match text.to_ascii_lowercase().as_str() {
            "csv" => Ok(TextFormat::Csv),
            "jsonl" | "json" | "ndjson" => Ok(TextFormat::JsonLines),
            other => Err(Error::programming(format!("unknown FIFO format '{other}'; use csv or jsonl"))),
        }
    }
}

/// Rows read to infer the schema before streaming starts.
const INFER_LINES: usize = 1000;
/// Rows per batch parsed from text.
const BATCH_ROWS: usize = 64 * 1024;

/// A FIFO this process made; removed when dropped.
struct Fifo {
    path: PathBuf,
}

impl Fifo {
    fn create(path: &Path) -> Result<Self> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| Error::programming("a FIFO path cannot contain NUL"))?;
        // SAFETY: a valid C string; mkfifo fails if anything exists at the path.
        if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
            let e = io::Error::last_os_error();
            let hint = if e.kind() == io::ErrorKind::AlreadyExists { "; remove it or choose another path" } else { "" };
            return Err(Error::programming(format!("cannot create the FIFO {}: {e}{hint}", path.display())));
        }
        Ok(Self { path: path.to_path_buf() })
    }

    /// Opens the FIFO for reading, waiting up to `timeout` for a writer.
    fn open_read(&self, timeout: Option<Duration>) -> Result<File> {
        // A non-blocking open of the read end succeeds at once; then wait for
        // a writer's first bytes. A writer that opens and closes without
        // writing is not told apart from none (an error either way).
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&self.path)
            .map_err(|e| Error::io(format!("opening the FIFO {}", self.path.display()), e))?;
        // Holding a write end ourselves keeps "no writer yet" from reading as the end.
        let keeper = OpenOptions::new()
            .write(true)
            .open(&self.path)
            .map_err(|e| Error::io(format!("opening {}", self.path.display()), e))?;
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let mut fd = libc::pollfd { fd: std::os::fd::AsRawFd::as_raw_fd(&file), events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut fd, 1, 100) } > 0;
            if ready {
                break;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::operational(format!(
                    "nobody opened the FIFO {} for writing within {:.1} s; point the other program at it (or raise the timeout)",
                    self.path.display(),
                    timeout.unwrap_or_default().as_secs_f64()
                )));
            }
        }
        set_blocking(&file)?;
        drop(keeper);
        Ok(file)
    }

    /// Opens the FIFO for writing, waiting up to `timeout` for a reader.
    fn open_write(&self, timeout: Option<Duration>) -> Result<File> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            match OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(&self.path) {
                Ok(file) => {
                    set_blocking(&file)?;
                    return Ok(file);
                }
                Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {}
                Err(e) => return Err(Error::io(format!("opening the FIFO {}", self.path.display()), e)),
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::operational(format!(
                    "nobody opened the FIFO {} for reading within {:.1} s; point the other program at it (or raise the timeout)",
                    self.path.display(),
                    timeout.unwrap_or_default().as_secs_f64()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Fifo {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn set_blocking(file: &File) -> Result<()> {
    let fd = std::os::fd::AsRawFd::as_raw_fd(file);
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0 {
            return Err(Error::io("making a FIFO blocking", io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// Checks that what came through the FIFO could be a whole file.
struct Intact<R> {
    inner: R,
    bytes: u64,
    last: u8,
}

impl<R: Read> Read for Intact<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.bytes += n as u64;
            self.last = buf[n - 1];
        } else if self.bytes == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the writer closed the FIFO without writing anything (not even a header)",
            ));
        } else if self.last != b'\n' {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the data ends in the middle of a line: the writer stopped before it finished",
            ));
        }
        Ok(n)
    }
}

/// Makes a FIFO at `path`, waits for a program to write `format` text into
/// it, and sends the rows into pipe `url` as they are parsed. Returns the rows.
pub fn fifo_in(url: &PipeUrl, path: &Path, format: TextFormat) -> Result<u64> {
    let fifo = Fifo::create(path)?;
    let file = fifo.open_read(url.timeout)?;
    let shown = path.display().to_string();
    let fail = |e: &dyn std::fmt::Display| Error::operational(format!("FIFO {shown}: {e}; nothing was imported"));
    let mut reader = BufReader::with_capacity(1 << 20, Intact { inner: file, bytes: 0, last: b'\n' });
    // Read the first lines to learn the schema, then parse them and the rest.
    let mut head = Vec::new();
    for _ in 0..=INFER_LINES {
        if reader.read_until(b'\n', &mut head).map_err(|e| fail(&e))? == 0 {
            break;
        }
    }
    let schema: SchemaRef = match format {
        TextFormat::Csv => {
            let (schema, _) = csv::reader::Format::default()
                .with_header(true)
                .infer_schema(Cursor::new(&head), Some(INFER_LINES))
                .map_err(|e| fail(&e))?;
            schema.into()
        }
        TextFormat::JsonLines => {
            let (schema, _) =
                json::reader::infer_json_schema(Cursor::new(&head), Some(INFER_LINES)).map_err(|e| fail(&e))?;
            schema.into()
        }
    };
    if schema.fields().is_empty() {
        return Err(fail(&"no columns were found in the first line"));
    }
    let text = Cursor::new(head).chain(reader);
    let mut writer = PipeWriter::open(url, schema.clone())?;
    let batches: Box<dyn Iterator<Item = std::result::Result<_, _>>> = match format {
        TextFormat::Csv => Box::new(
            csv::ReaderBuilder::new(schema)
                .with_header(true)
                .with_batch_size(BATCH_ROWS)
                .build(text)
                .map_err(|e| fail(&e))?,
        ),
        TextFormat::JsonLines => Box::new(
            json::ReaderBuilder::new(schema)
                .with_batch_size(BATCH_ROWS)
                .build(BufReader::new(text))
                .map_err(|e| fail(&e))?,
        ),
    };
    for batch in batches {
        match batch {
            Ok(b) => writer.write(&b)?,
            Err(e) => {
                let e = fail(&e);
                writer.abort(e.message());
                return Err(e);
            }
        }
    }
    writer.close()
}

/// Makes a FIFO at `path`, calls `rows` for the rows of pipe `url` (which
/// waits for its exporter), waits for a program to open the FIFO for reading,
/// and writes the rows into it as CSV with a header. Returns the rows.
pub fn fifo_out<R>(url: &PipeUrl, path: &Path, rows: impl FnOnce() -> Result<R>) -> Result<u64>
where
    R: Iterator<Item = Result<RecordBatch>>,
{
    let fifo = Fifo::create(path)?;
    let batches = rows()?;
    let file = fifo.open_write(url.timeout)?;
    let mut writer = csv::WriterBuilder::new().with_header(true).build(io::BufWriter::with_capacity(1 << 20, file));
    let mut rows = 0;
    let broken = |e: &dyn std::fmt::Display| {
        Error::operational(format!("FIFO {}: {e} (did the reader stop early?)", path.display()))
    };
    for batch in batches {
        let batch = batch?;
        rows += batch.num_rows() as u64;
        writer.write(&batch).map_err(|e| broken(&e))?;
    }
    writer.into_inner().flush().map_err(|e| broken(&e))?;
    Ok(rows)
}
