//! Encoding an Arrow IPC file from pieces of record batches (the chunks of a
//! pyarrow table, a query's batches, the messages of a pipe): each record
//! batch message is laid out from the pieces' buffers where they are, and
//! only what must change is built anew (offsets rebased, bitmaps shifted: a
//! few bytes per row at most). The layout is the one arrow-rs's `FileWriter`
//! makes of the concatenated batch (the magic padded to [`ALIGNMENT`], the
//! schema message, record batch messages with each buffer padded to
//! [`ALIGNMENT`], the end-of-stream marker, the footer), except that a column
//! without NULLs has an empty validity buffer (which the format allows)
//! instead of a bitmap of ones. The layout and per-column checksums are taken
//! as the bytes pass (see `segment::written_checksums`, which computes the
//! same from a file). A dictionary column (see [`super::encoding`]) has one
//! dictionary for the file, written before the record batch.

use super::segment::{hash_array_data, ALIGNMENT};
use datafusion::arrow::array::{
    Array, ArrayData, ArrayRef, AsArray, BooleanBufferBuilder, OffsetSizeTrait, RecordBatch,
};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ipc::convert::IpcSchemaEncoder;
use datafusion::arrow::ipc::writer::{
    write_message, DictionaryTracker, IpcDataGenerator, IpcWriteContext, IpcWriteOptions,
};
use datafusion::arrow::ipc::{
    Block, FieldNode, FooterBuilder, MessageBuilder, MessageHeader, MetadataVersion, RecordBatchBuilder,
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

/// Whether [`IpcFileEncoder`] writes columns of type `dt` from their pieces:
/// types whose buffers are a validity bitmap, fixed-width values or bits, and
/// offsets into bytes.
pub fn is_flat(dt: &DataType) -> bool {
    matches!(dt, DataType::Boolean | DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary)
        || dt.primitive_width().is_some()
}

/// Whether [`IpcFileEncoder`] writes columns of type `dt` whose pieces share
/// one dictionary: [`is_flat`] types and dictionaries of strings with
/// integer keys.
pub fn is_writable(dt: &DataType) -> bool {
    match dt {
        DataType::Dictionary(key, value) => key.is_integer() && value.as_ref() == &DataType::Utf8,
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
        })
    }

    /// Writes the rows of `pieces` (batches of the schema, in order) as one
    /// record batch message; nothing when they hold no rows.
    pub fn write_batch(&mut self, out: &mut impl Write, pieces: &[RecordBatch]) -> Result<(), ArrowError> {
        let rows = pieces.iter().map(|p| p.num_rows()).sum::<usize>();
        if rows == 0 {
            return Ok(());
        }
        self.write_dictionaries(out, pieces)?;
        let body = Body::of(&self.schema, pieces)?;
        let (message, body_len) = body.message(rows);
        let header_len = (message.len() + 8).next_multiple_of(ALIGNMENT);
        let mut header = Vec::with_capacity(header_len);
        header.extend_from_slice(&CONTINUATION);
        header.extend_from_slice(&((header_len - 8) as i32).to_le_bytes());
        header.extend_from_slice(&message);
        header.resize(header_len, 0);
        self.layout.update(&header);
        out.write_all(&header)?;
        body.write(out, &mut self.columns)?;
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
/// (length, NULL count) and buffers, each buffer the list of byte ranges it is
/// written from, in order.
struct Body {
    nodes: Vec<FieldNode>,
    columns: Vec<Vec<Vec<Buffer>>>,
}

impl Body {
    fn of(schema: &SchemaRef, pieces: &[RecordBatch]) -> std::result::Result<Self, ArrowError> {
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
            body.columns.push(buffers);
        }
        Ok(body)
    }

    /// The record batch message (flatbuffer) describing this body, and the
    /// body's length (its buffers, each padded to [`ALIGNMENT`]).
    fn message(&self, rows: usize) -> (Vec<u8>, usize) {
        let mut offset = 0;
        let buffers: Vec<datafusion::arrow::ipc::Buffer> = self
            .columns
            .iter()
            .flatten()
            .map(|parts| {
                let len = parts.iter().map(|p| p.len()).sum::<usize>();
                let at = offset;
                offset += len.next_multiple_of(ALIGNMENT);
                datafusion::arrow::ipc::Buffer::new(at as i64, len as i64)
            })
            .collect();
        let mut fbb = FlatBufferBuilder::new();
        let nodes = fbb.create_vector(&self.nodes);
        let buffers = fbb.create_vector(&buffers);
        let mut batch = RecordBatchBuilder::new(&mut fbb);
        batch.add_length(rows as i64);
        batch.add_nodes(nodes);
        batch.add_buffers(buffers);
        let batch = batch.finish().as_union_value();
        let mut message = MessageBuilder::new(&mut fbb);
        message.add_version(MetadataVersion::V5);
        message.add_header_type(MessageHeader::RecordBatch);
        message.add_bodyLength(offset as i64);
        message.add_header(batch);
        let message = message.finish();
        fbb.finish(message, None);
        (fbb.finished_data().to_vec(), offset)
    }

    /// Writes the buffers, each padded to [`ALIGNMENT`] (as [`Self::message`]
    /// lays them out), adding each column's buffers (without padding, in
    /// order: what `segment::column_crc` hashes of the decoded column) to its
    /// checksum in `columns`.
    fn write(&self, out: &mut impl Write, columns: &mut [crc32fast::Hasher]) -> io::Result<()> {
        for (buffers, column) in self.columns.iter().zip(columns) {
            for parts in buffers {
                let len = parts.iter().map(|p| p.len()).sum::<usize>();
                for chunk in parts.iter().flat_map(|p| p.as_slice().chunks(HASH_CHUNK)) {
                    column.update(chunk);
                    out.write_all(chunk)?;
                }
                out.write_all(&PADDING[..len.next_multiple_of(ALIGNMENT) - len])?;
            }
        }
        Ok(())
    }
}

/// The bitmap of `len` bits that `bits` gives for each of `columns` in turn
/// (all set where it gives none).
fn bitmap(columns: &[ArrayData], len: usize, bits: impl Fn(&ArrayData) -> Option<BooleanBuffer>) -> Buffer {
    let mut out = BooleanBufferBuilder::new(len);
    for column in columns {
        match bits(column) {
            Some(b) => out.append_buffer(&b),
            None => out.append_n(column.len(), true),
        }
    }
    out.finish().into_inner()
}

/// The offsets and values buffers of the strings (or bytes) of `columns` as
/// one array: the values where they are, the offsets rebased (or, for a single
/// array whose offsets start at 0, those too where they are).
fn variable<O: OffsetSizeTrait>(
    columns: &[ArrayData],
    name: &str,
) -> std::result::Result<[Vec<Buffer>; 2], ArrowError> {
    let ends = |d: &ArrayData| {
        let offsets = d.buffer::<O>(0);
        (offsets[0].as_usize(), offsets[d.len()].as_usize())
    };
    if let [one] = columns {
        if ends(one).0 == 0 {
            let size = std::mem::size_of::<O>();
            let offsets = one.buffers()[0].slice_with_length(one.offset() * size, (one.len() + 1) * size);
            return Ok([vec![offsets], vec![one.buffers()[1].slice_with_length(0, ends(one).1)]]);
        }
    }
    let len = columns.iter().map(|d| d.len()).sum::<usize>();
    let mut offsets: Vec<O> = Vec::with_capacity(len + 1);
    offsets.push(O::usize_as(0));
    let mut values = Vec::with_capacity(columns.len());
    let mut end = 0usize;
    for d in columns {
        let (first, last) = ends(d);
        let base = end;
        end += last - first;
        if O::from_usize(end).is_none() {
            return Err(ArrowError::InvalidArgumentError(format!(
                "column {name} holds more than {} bytes in one segment, more than its type's 32-bit offsets address",
                i32::MAX
            )));
        }
        offsets.extend(d.buffer::<O>(0)[1..=d.len()].iter().map(|&o| O::usize_as(o.as_usize() - first + base)));
        values.push(d.buffers()[1].slice_with_length(first, last - first));
    }
    Ok([vec![Buffer::from_vec(offsets)], values])
}
