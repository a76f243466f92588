//! Encoding an Arrow IPC file from pieces of record batches (the chunks of a
//! pyarrow table, a query's batches, the messages of a pipe): each record
//! batch message is laid out from the pieces' buffers where they are, and
//! only what must change is built anew (offsets rebased, bitmaps shifted: a
//! few bytes per row at most). The layout is the one arrow-rs's `FileWriter`
//! makes of the concatenated batch (the magic padded to [`ALIGNMENT`], the
//! schema message, record batch messages with each buffer padded to
//! [`ALIGNMENT`], the end-of-stream marker, the footer), except that a column
//! without NULLs has an empty validity buffer (which the format allows)
//! instead of a bitmap of ones, and that buffers of [`PAGE_ALIGNED_MIN`]
//! bytes or more start on a page of the file (the format lets a message put
//! its buffers anywhere in its body). The layout and per-column checksums are taken
//! as the bytes pass (see `segment::written_checksums`, which computes the
//! same from a file). A dictionary column (see [`crate::encoding`]) has one
//! dictionary for the file, written before the record batch. Columns chosen
//! for compression (see [`crate::encoding::compressed`]) are compressed as they are
//! written; their record batch's message, which lists the lengths of its
//! buffers, is written into room left for it once they are known. Packed
//! columns (see [`crate::encoding::packed`]) are run-end encoded arrays of
//! binary runs, written as their children's buffers.

use crate::encoding::compressed_write::CompressedColumn;
use crate::segment::joined_buffers::{bitmap, run_end_encoded, variable};
use crate::segment::{hash_array_data, ALIGNMENT};
use datafusion::arrow::array::{Array, ArrayData, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ipc::convert::IpcSchemaEncoder;
use datafusion::arrow::ipc::writer::{
    write_message, DictionaryTracker, IpcDataGenerator, IpcWriteContext, IpcWriteOptions,
};
use datafusion::arrow::ipc::{
    Block, BodyCompressionBuilder, CompressionType, FieldNode, FooterBuilder, MessageBuilder, MessageHeader,
    MetadataVersion, RecordBatchBuilder,
};
use flatbuffers::FlatBufferBuilder;
use std::io::{self, Write};

/// Column data goes to the file in chunks of this size, each checksummed just
/// before and after the kernel copies it (its column's checksum here, the
/// file's in the `Write` below), while it is in the CPU's cache: one read of
/// the data from memory instead of three (two checksums, one copy).
const HASH_CHUNK: usize = 256 << 10;

/// What an Arrow IPC file starts and ends with.
const MAGIC: &[u8; 6] = b"ARROW1";

/// What precedes each message's length (IPC format 0.15 and later).
const CONTINUATION: [u8; 4] = [0xff; 4];

/// Zeros for padding buffers and messages to [`ALIGNMENT`].
const PADDING: [u8; ALIGNMENT] = [0; ALIGNMENT];

/// Buffers of at least this many bytes start on a page of the file (of
/// [`PAGE`] bytes) instead of on [`ALIGNMENT`]: pages of several segments can
/// then be mapped side by side into one array without copying (see
/// [`crate::segment::stitched`]). At most a page of padding per 64 KiB of data (a
/// segment of whole pages of rows holds at least 32 KiB of a column of
/// bytes, so every wider column's values start on a page).
pub const PAGE_ALIGNED_MIN: usize = 64 << 10;

/// The page size that large buffers are aligned to in the file (the x86-64
/// and most arm64 kernels' page).
pub const PAGE: usize = 4096;

/// Where a buffer of `len` bytes whose bytes may start at `at` or later (a
/// position in the file) starts: on a page if large, else on [`ALIGNMENT`].
fn buffer_start(at: usize, len: usize) -> usize {
    at.next_multiple_of(if len >= PAGE_ALIGNED_MIN { PAGE } else { ALIGNMENT })
}

/// Whether [`IpcFileEncoder`] writes columns of type `dt` from their pieces:
/// types whose buffers are a validity bitmap, fixed-width values or bits, and
/// offsets into bytes.
pub fn is_flat(dt: &DataType) -> bool {
    matches!(dt, DataType::Boolean | DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary)
        || dt.primitive_width().is_some()
}

/// Whether [`IpcFileEncoder`] writes columns of type `dt` whose pieces share
/// one dictionary: [`is_flat`] types, dictionaries of strings with integer
/// keys, and packed columns (see [`crate::encoding::packed`]).
pub fn is_writable(dt: &DataType) -> bool {
    match dt {
        DataType::Dictionary(key, value) => key.is_integer() && value.as_ref() == &DataType::Utf8,
        DataType::RunEndEncoded(..) => crate::encoding::packed::physical_type(dt).is_some(),
        dt => is_flat(dt),
    }
}

/// An Arrow IPC file being written to a `Write`: [`Self::start`], any number
/// of [`Self::write_batch`], [`Self::finish`]. Every column must be
/// [`is_writable`]; a dictionary column's pieces must share one dictionary.
pub struct IpcFileEncoder {
    schema: SchemaRef,
    /// Bytes written so far: where the next message starts.
    written: usize,
    blocks: Vec<Block>,
    /// The dictionary messages, once written (with the first batch).
    dictionary_blocks: Vec<Block>,
    /// Per column, the dictionary written for it (dictionary columns only).
    dictionaries: Vec<Option<ArrayRef>>,
    /// The dictionary ids of the schema's dictionary columns.
    tracker: DictionaryTracker,
    layout: crc32fast::Hasher,
    columns: Vec<crc32fast::Hasher>,
    /// Per column, whether it is written compressed.
    compressed: Vec<bool>,
}

/// A `Write` that can fill in bytes it left room for earlier: a record
/// batch's message, which lists where its buffers are and how long, is known
/// only after its compressed columns were written.
pub trait Patch: Write {
    /// Writes `len` zero bytes to be [`Self::patch`]ed; returns where they start.
    fn reserve(&mut self, len: usize) -> io::Result<u64>;
    /// Writes `bytes` over the room [`Self::reserve`] left at `at`, which
    /// must be the last room left and as long.
    fn patch(&mut self, at: u64, bytes: &[u8]) -> io::Result<()>;
}

/// For tests: a file built in memory.
#[cfg(test)]
impl Patch for Vec<u8> {
    fn reserve(&mut self, len: usize) -> io::Result<u64> {
        let at = self.len();
        self.resize(at + len, 0);
        Ok(at as u64)
    }
    fn patch(&mut self, at: u64, bytes: &[u8]) -> io::Result<()> {
        let at = at as usize;
        self[at..at + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }
}

/// How segment files are written: 64-byte aligned buffers, no compression.
fn write_options() -> Result<IpcWriteOptions, ArrowError> {
    IpcWriteOptions::try_new(ALIGNMENT, false, MetadataVersion::V5)
}

impl IpcFileEncoder {
    /// Writes the start of a file of `schema` (the magic and the schema message) to `out`.
    pub fn start(out: &mut impl Write, schema: &SchemaRef) -> Result<Self, ArrowError> {
        let options = write_options()?;
        out.write_all(MAGIC)?;
        out.write_all(&PADDING[..ALIGNMENT - MAGIC.len()])?;
        let mut tracker = DictionaryTracker::new(true);
        let encoded_schema =
            IpcDataGenerator::default().schema_to_bytes_with_dictionary_tracker(schema, &mut tracker, &options);
        let (meta, body) = write_message(&mut *out, encoded_schema, &options)?;
        Ok(Self {
            schema: schema.clone(),
            written: ALIGNMENT + meta + body,
            blocks: Vec::new(),
            dictionary_blocks: Vec::new(),
            dictionaries: vec![None; schema.fields().len()],
            tracker,
            layout: crc32fast::Hasher::new(),
            columns: vec![crc32fast::Hasher::new(); schema.fields().len()],
            compressed: vec![false; schema.fields().len()],
        })
    }

    /// Writes the columns flagged in `columns` compressed (see
    /// [`crate::encoding::compressed`]); they must be of compressible types.
    pub fn compressing(mut self, columns: Vec<bool>) -> Self {
        debug_assert_eq!(columns.len(), self.schema.fields().len());
        self.compressed = columns;
        self
    }

    /// Writes the rows of `pieces` (batches of the schema, in order) as one
    /// record batch message; nothing when they hold no rows.
    pub fn write_batch(&mut self, out: &mut impl Patch, pieces: &[RecordBatch]) -> Result<(), ArrowError> {
        let rows = pieces.iter().map(|p| p.num_rows()).sum::<usize>();
        if rows == 0 {
            return Ok(());
        }
        self.write_dictionaries(out, pieces)?;
        let body = Body::of(&self.schema, pieces, &self.compressed)?;
        // The message's size does not depend on where the buffers are or how
        // long (fixed-size structs), only on how many there are: so where the
        // body starts in the file, which large buffers are aligned against,
        // is known before the message is.
        let placeholder = vec![datafusion::arrow::ipc::Buffer::new(0, 0); body.buffer_count()];
        let room = header(&body.message(rows, &placeholder, 1), 0).len();
        let body_start = self.written + room;
        let fitted = |header: Vec<u8>| {
            if header.len() == room {
                Ok(header)
            } else {
                Err(ArrowError::IpcError(format!(
                    "a record batch message of {} bytes where {room} were left for it",
                    header.len()
                )))
            }
        };
        let (header, body_len) = if body.is_compressed() {
            let at = out.reserve(room)?;
            let (buffers, body_len) = body.write_compressed(out, &mut self.columns, body_start)?;
            let header = fitted(header(&body.message(rows, &buffers, body_len), room))?;
            out.patch(at, &header)?;
            (header, body_len)
        } else {
            let (buffers, body_len) = body.layout(body_start);
            let header = fitted(header(&body.message(rows, &buffers, body_len), room))?;
            out.write_all(&header)?;
            body.write(out, &buffers, body_len, &mut self.columns)?;
            (header, body_len)
        };
        self.layout.update(&header);
        let header_len = header.len();
        // A dictionary column's checksum covers its keys, then its dictionary
        // (how a decoded dictionary array's buffers are hashed).
        for (dictionary, column) in self.dictionaries.iter().zip(&mut self.columns) {
            if let Some(values) = dictionary {
                hash_array_data(column, &values.to_data());
            }
        }
        self.blocks.push(Block::new(self.written as i64, header_len as i32, body_len as i64));
        self.written += header_len + body_len;
        Ok(())
    }

    /// Writes the dictionaries of `pieces`' dictionary columns (each column's
    /// pieces share one) before the first record batch; later pieces must
    /// have the same ones.
    fn write_dictionaries(&mut self, out: &mut impl Write, pieces: &[RecordBatch]) -> Result<(), ArrowError> {
        let Some(first) = pieces.first() else { return Ok(()) };
        let written = !self.dictionary_blocks.is_empty();
        for (c, field) in self.schema.fields().iter().enumerate() {
            if !matches!(field.data_type(), DataType::Dictionary(..)) {
                continue;
            }
            for piece in pieces {
                let values = piece.column(c).as_any_dictionary_opt().map(|d| d.values().clone());
                let shared = values.as_ref().zip(self.dictionaries[c].as_ref().or(values.as_ref()));
                if !shared.is_some_and(|(a, b)| std::sync::Arc::ptr_eq(a, b)) {
                    return Err(ArrowError::InvalidArgumentError(format!(
                        "the pieces of dictionary column {} do not share one dictionary",
                        field.name()
                    )));
                }
                self.dictionaries[c] = values;
            }
        }
        if written || self.dictionaries.iter().all(Option::is_none) {
            return Ok(());
        }
        // The dictionaries of a batch without rows are the pieces' ones.
        let options = write_options()?;
        let (dictionaries, _) = IpcDataGenerator::default().encode(
            &first.slice(0, 0),
            &mut self.tracker,
            &options,
            &mut IpcWriteContext::default(),
        )?;
        for encoded in dictionaries {
            let mut bytes = Vec::new();
            let (meta, body) = write_message(&mut bytes, encoded, &options)?;
            self.layout.update(&bytes);
            out.write_all(&bytes)?;
            self.dictionary_blocks.push(Block::new(self.written as i64, meta as i32, body as i64));
            self.written += meta + body;
        }
        Ok(())
    }

    /// Writes the end of the file (the end-of-stream marker, the footer) and
    /// returns the layout and per-column checksums.
    pub fn finish(mut self, out: &mut impl Write) -> Result<(u32, Vec<u32>), ArrowError> {
        out.write_all(&CONTINUATION)?;
        out.write_all(&0i32.to_le_bytes())?;
        let mut fbb = FlatBufferBuilder::new();
        let dictionaries = fbb.create_vector(&self.dictionary_blocks);
        let record_batches = fbb.create_vector(&self.blocks);
        // The same dictionary ids again, as the schema message has them.
        self.tracker.clear();
        let schema = IpcSchemaEncoder::new()
            .with_dictionary_tracker(&mut self.tracker)
            .schema_to_fb_offset(&mut fbb, &self.schema);
        let mut footer = FooterBuilder::new(&mut fbb);
        footer.add_version(MetadataVersion::V5);
        footer.add_schema(schema);
        footer.add_dictionaries(dictionaries);
        footer.add_recordBatches(record_batches);
        let footer = footer.finish();
        fbb.finish(footer, None);
        let footer = fbb.finished_data();
        let mut tail = Vec::with_capacity(footer.len() + 4 + MAGIC.len());
        tail.extend_from_slice(footer);
        tail.extend_from_slice(&(footer.len() as i32).to_le_bytes());
        tail.extend_from_slice(MAGIC);
        self.layout.update(&tail);
        out.write_all(&tail)?;
        out.flush()?;
        Ok((self.layout.finalize(), self.columns.into_iter().map(|c| c.finalize()).collect()))
    }
}

/// The body of a record batch message made of pieces: per column its node
/// (length, NULL count) and its buffers.
struct Body {
    nodes: Vec<FieldNode>,
    columns: Vec<ColumnBody>,
}

/// The buffers of one column of a [`Body`].
enum ColumnBody {
    /// Each buffer as the list of byte ranges it is written from, in order.
    Plain(Vec<Vec<Buffer>>),
    /// Compressed as it is written.
    Compressed(CompressedColumn),
}

/// `message` (a flatbuffer) as written before its body: the continuation
/// marker, its length, itself, zeros up to [`ALIGNMENT`] and at least
/// `min_len` bytes in all.
fn header(message: &[u8], min_len: usize) -> Vec<u8> {
    let len = (message.len() + 8).next_multiple_of(ALIGNMENT).max(min_len);
    let mut header = Vec::with_capacity(len);
    header.extend_from_slice(&CONTINUATION);
    header.extend_from_slice(&((len - 8) as i32).to_le_bytes());
    header.extend_from_slice(message);
    header.resize(len, 0);
    header
}

/// Writes `len` zero bytes.
fn pad(out: &mut impl Write, mut len: usize) -> io::Result<()> {
    while len > 0 {
        let n = len.min(ALIGNMENT);
        out.write_all(&PADDING[..n])?;
        len -= n;
    }
    Ok(())
}

/// Writes `parts` one after the other, adding them to `column` (a column's
/// checksum) a chunk at a time as they pass; returns their length.
fn write_parts(out: &mut impl Write, parts: &[Buffer], column: &mut crc32fast::Hasher) -> io::Result<usize> {
    for chunk in parts.iter().flat_map(|p| p.as_slice().chunks(HASH_CHUNK)) {
        column.update(chunk);
        out.write_all(chunk)?;
    }
    Ok(parts.iter().map(|p| p.len()).sum())
}

impl Body {
    fn of(schema: &SchemaRef, pieces: &[RecordBatch], compressed: &[bool]) -> std::result::Result<Self, ArrowError> {
        let mut body = Body { nodes: Vec::new(), columns: Vec::new() };
        for (c, field) in schema.fields().iter().enumerate() {
            let columns: Vec<ArrayData> = pieces.iter().map(|p| p.column(c).to_data()).collect();
            if let Some(other) = columns.iter().find(|d| d.data_type() != field.data_type()) {
                return Err(ArrowError::SchemaError(format!(
                    "column {} holds {} where the table has {}",
                    field.name(),
                    other.data_type(),
                    field.data_type()
                )));
            }
            let len = columns.iter().map(|d| d.len()).sum::<usize>();
            let nulls = columns.iter().map(|d| d.null_count()).sum::<usize>();
            body.nodes.push(FieldNode::new(len as i64, nulls as i64));
            if compressed[c] {
                body.columns.push(ColumnBody::Compressed(CompressedColumn::new(field.data_type(), columns)));
                continue;
            }
            if let DataType::RunEndEncoded(..) = field.data_type() {
                let (runs, buffers) = run_end_encoded(&columns, field.name())?;
                body.nodes.extend([FieldNode::new(runs as i64, 0), FieldNode::new(runs as i64, 0)]);
                body.columns.push(ColumnBody::Plain(buffers));
                continue;
            }
            // A column without NULLs gets an empty validity buffer, which a
            // reader takes for "no bitmap" (as the checksums do).
            let mut buffers = vec![if nulls == 0 {
                Vec::new()
            } else {
                vec![bitmap(&columns, len, |d| d.nulls().map(|n| n.inner().clone()))]
            }];
            match field.data_type() {
                DataType::Boolean => buffers.push(vec![bitmap(&columns, len, |d| {
                    Some(BooleanBuffer::new(d.buffers()[0].clone(), d.offset(), d.len()))
                })]),
                DataType::Utf8 | DataType::Binary => buffers.extend(variable::<i32>(&columns, field.name())?),
                DataType::LargeUtf8 | DataType::LargeBinary => buffers.extend(variable::<i64>(&columns, field.name())?),
                dt => {
                    // A dictionary column's own buffer is its keys.
                    let width = match dt {
                        DataType::Dictionary(key, _) => key.primitive_width(),
                        dt => dt.primitive_width(),
                    };
                    let width = width.expect("is_writable");
                    buffers.push(
                        columns
                            .iter()
                            .map(|d| d.buffers()[0].slice_with_length(d.offset() * width, d.len() * width))
                            .collect(),
                    )
                }
            }
            body.columns.push(ColumnBody::Plain(buffers));
        }
        Ok(body)
    }

    /// Whether some column is compressed (and so the whole body is, as Arrow
    /// marks it: every buffer starts with its uncompressed length).
    fn is_compressed(&self) -> bool {
        self.columns.iter().any(|c| matches!(c, ColumnBody::Compressed(_)))
    }

    /// How many buffers the message lists.
    fn buffer_count(&self) -> usize {
        self.columns
            .iter()
            .map(|c| match c {
                ColumnBody::Plain(buffers) => buffers.len(),
                ColumnBody::Compressed(column) => column.buffer_count(),
            })
            .sum()
    }

    /// Where each buffer of an uncompressed body starting at `body_start` in
    /// the file is (see [`buffer_start`]), and the body's length (a multiple
    /// of [`ALIGNMENT`]).
    fn layout(&self, body_start: usize) -> (Vec<datafusion::arrow::ipc::Buffer>, usize) {
        let mut end = body_start;
        let buffers = self
            .columns
            .iter()
            .flat_map(|c| match c {
                ColumnBody::Plain(buffers) => buffers.as_slice(),
                ColumnBody::Compressed(_) => unreachable!("an uncompressed body"),
            })
            .map(|parts| {
                let len = parts.iter().map(|p| p.len()).sum::<usize>();
                let at = buffer_start(end, len);
                end = at + len;
                datafusion::arrow::ipc::Buffer::new((at - body_start) as i64, len as i64)
            })
            .collect();
        (buffers, end.next_multiple_of(ALIGNMENT) - body_start)
    }

    /// The record batch message (flatbuffer) describing this body, with its
    /// buffers where `buffers` says and `body_len` long.
    fn message(&self, rows: usize, buffers: &[datafusion::arrow::ipc::Buffer], body_len: usize) -> Vec<u8> {
        let mut fbb = FlatBufferBuilder::new();
        let nodes = fbb.create_vector(&self.nodes);
        let buffers = fbb.create_vector(buffers);
        let compression = self.is_compressed().then(|| {
            let mut compression = BodyCompressionBuilder::new(&mut fbb);
            compression.add_codec(CompressionType::ZSTD);
            compression.finish()
        });
        let mut batch = RecordBatchBuilder::new(&mut fbb);
        batch.add_length(rows as i64);
        batch.add_nodes(nodes);
        batch.add_buffers(buffers);
        if let Some(compression) = compression {
            batch.add_compression(compression);
        }
        let batch = batch.finish().as_union_value();
        let mut message = MessageBuilder::new(&mut fbb);
        message.add_version(MetadataVersion::V5);
        message.add_header_type(MessageHeader::RecordBatch);
        message.add_bodyLength(body_len as i64);
        message.add_header(batch);
        let message = message.finish();
        fbb.finish(message, None);
        fbb.finished_data().to_vec()
    }

    /// Writes the buffers of an uncompressed body where `layout` (of
    /// [`Self::layout`], `body_len` long) puts them, adding each column's
    /// buffers (without padding, in order: what `segment::column_crc` hashes
    /// of the decoded column) to its checksum in `columns`.
    fn write(
        &self,
        out: &mut impl Write,
        layout: &[datafusion::arrow::ipc::Buffer],
        body_len: usize,
        columns: &mut [crc32fast::Hasher],
    ) -> io::Result<()> {
        let mut places = layout.iter();
        let mut at = 0;
        for (body, column) in self.columns.iter().zip(columns) {
            let ColumnBody::Plain(buffers) = body else { unreachable!("an uncompressed body") };
            for parts in buffers {
                let start = places.next().expect("a place for every buffer").offset() as usize;
                pad(out, start - at)?;
                at = start + write_parts(out, parts, column)?;
            }
        }
        pad(out, body_len - at)
    }

    /// Writes the buffers of a compressed body and returns where each is and
    /// the body's length. An uncompressed column's buffers are marked so
    /// (length -1) and their bytes start where [`buffer_start`] puts them,
    /// where numpy can view them; its checksum is taken as [`Self::write`] takes it. A
    /// compressed column's is taken over its frames (see
    /// [`CompressedColumn::write_buffer`]).
    fn write_compressed(
        &self,
        out: &mut impl Write,
        columns: &mut [crc32fast::Hasher],
        body_start: usize,
    ) -> io::Result<(Vec<datafusion::arrow::ipc::Buffer>, usize)> {
        let mut at = 0usize;
        let mut buffers = Vec::with_capacity(self.buffer_count());
        let mut place =
            |at: usize, len: usize| buffers.push(datafusion::arrow::ipc::Buffer::new(at as i64, len as i64));
        for (body, column) in self.columns.iter().zip(columns) {
            match body {
                ColumnBody::Plain(plain) => {
                    for parts in plain {
                        if parts.iter().all(|p| p.is_empty()) {
                            place(at, 0);
                            continue;
                        }
                        let len = parts.iter().map(|p| p.len()).sum::<usize>();
                        let start = buffer_start(body_start + at + 8, len) - body_start - 8;
                        pad(out, start - at)?;
                        out.write_all(&(-1i64).to_le_bytes())?;
                        let len = 8 + write_parts(out, parts, column)?;
                        place(start, len);
                        at = start + len;
                    }
                }
                ColumnBody::Compressed(compressed) => {
                    for i in 0..compressed.buffer_count() {
                        let start = at.next_multiple_of(ALIGNMENT);
                        pad(out, start - at)?;
                        let len = compressed.write_buffer(i, out, column)?;
                        place(start, len);
                        at = start + len;
                    }
                }
            }
        }
        let end = at.next_multiple_of(ALIGNMENT);
        pad(out, end - at)?;
        Ok((buffers, end))
    }
}
