//! Decoding a mapped segment file into record batches whose buffers point
//! into the mapping, and the checksum of its layout: what a decoder reads
//! besides column data.

use crate::encoding::compressed::{compressed_array, is_compressible};
use crate::encoding::packed;
use crate::error::{Error, Result};
use datafusion::arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::ipc::convert::fb_to_schema;
use datafusion::arrow::ipc::reader::{read_footer_length, FileDecoder};
use datafusion::arrow::ipc::{root_as_footer, Block};
use std::sync::Arc;

/// The footer of an Arrow IPC file in `buffer` and where it starts.
fn footer(buffer: &Buffer) -> Result<(datafusion::arrow::ipc::Footer<'_>, usize)> {
    let len = buffer.len();
    if len < 10 {
        return Err(Error::corruption("file is too short to be an Arrow IPC file"));
    }
    let trailer: [u8; 10] = buffer[len - 10..].try_into().expect("10 bytes");
    let footer_len = read_footer_length(trailer)?;
    if footer_len + 10 > len {
        return Err(Error::corruption("footer length points outside the file"));
    }
    let start = len - 10 - footer_len;
    let footer =
        root_as_footer(&buffer[start..len - 10]).map_err(|e| Error::corruption(format!("unreadable footer: {e}")))?;
    Ok((footer, start))
}

/// CRC-32 of everything a decoder reads besides column data: dictionary
/// blocks whole, each record batch's message header, the footer and trailer.
pub fn layout_crc(buffer: &Buffer) -> Result<u32> {
    let (footer, footer_start) = footer(buffer)?;
    let mut hasher = crc32fast::Hasher::new();
    for block in footer.dictionaries().iter().flatten() {
        hasher.update(&checked_slice(
            buffer,
            block.offset(),
            block.metaDataLength() as usize + block.bodyLength() as usize,
        )?);
    }
    for block in footer.recordBatches().iter().flatten() {
        hasher.update(&checked_slice(buffer, block.offset(), block.metaDataLength() as usize)?);
    }
    hasher.update(&buffer[footer_start..]);
    Ok(hasher.finalize())
}

/// The schema and record batches of the Arrow IPC file in `buffer`, decoded
/// as the file says (its footer's schema): a segment's columns are the
/// table's when it was written; [`crate::segment::store::SegmentView`] maps them to
/// the table's columns now. Compressed columns (see [`crate::encoding::compressed`])
/// are left compressed, as the schema then says.
pub fn decode(buffer: &Buffer, trusted: bool) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let (footer, _) = footer(buffer)?;
    let schema = Arc::new(footer.schema().map(fb_to_schema).ok_or_else(|| Error::corruption("footer has no schema"))?);
    let block_data = |block: &Block| {
        checked_slice(buffer, block.offset(), block.bodyLength() as usize + block.metaDataLength() as usize)
    };
    let batch_blocks: Vec<Block> = footer.recordBatches().iter().flatten().copied().collect();
    let compressed = match batch_blocks.as_slice() {
        [one] => compressed_columns(&schema, one, &block_data(one)?)?,
        _ => Vec::new(),
    };
    let mut decoder = FileDecoder::new(schema.clone(), footer.version()).with_require_alignment(true);
    if !compressed.is_empty() {
        decoder = decoder.with_projection((0..schema.fields().len()).filter(|&c| compressed[c].is_none()).collect());
    }
    if trusted {
        // SAFETY: the metadata's CRC-32 (or the whole file's) matched the one
        // recorded when the file was written, so buffer positions and lengths
        // are the ones arrow-rs produced (and the lengths before the buffers
        // of a compressed batch were checked); column data is only handed out
        // after its own check passed (`MappedSegment::batches`): its
        // checksum, or, where checksums are not verified, `validate_full` of
        // its arrays.
        decoder = unsafe { decoder.with_skip_validation(true) };
    }
    for block in footer.dictionaries().iter().flatten() {
        decoder.read_dictionary(block, &block_data(block)?)?;
    }
    let mut batches = Vec::new();
    for block in &batch_blocks {
        if let Some(batch) = decoder.read_record_batch(block, &block_data(block)?)? {
            batches.push(batch);
        }
    }
    if compressed.is_empty() {
        return Ok((schema, batches));
    }
    // One record batch, whose compressed columns go between the others.
    let [batch] = &batches[..] else { return Err(Error::corruption("a compressed record batch did not decode")) };
    let mut plain = batch.columns().iter();
    let columns: Vec<ArrayRef> = compressed
        .into_iter()
        .map(|c| c.unwrap_or_else(|| plain.next().expect("a projected column").clone()))
        .collect();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .zip(&columns)
        .map(|(f, c)| f.as_ref().clone().with_data_type(c.data_type().clone()))
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok((schema.clone(), vec![RecordBatch::try_new_with_options(schema, columns, &options)?]))
}

/// Per column of the record batch in `block` (its bytes `data`): the
/// column, compressed (see [`crate::encoding::compressed`]), where it is stored so;
/// empty when the batch is not compressed. Where it is, every buffer's
/// stated length is checked first: -1 (stored plain) or, for a compressed
/// column's buffers, a frame index that fits the column; any other (which
/// arrow-rs would take for a length to decompress to) is refused.
fn compressed_columns(schema: &SchemaRef, block: &Block, data: &Buffer) -> Result<Vec<Option<ArrayRef>>> {
    let meta_len = block.metaDataLength() as usize;
    let header = data.get(..meta_len).filter(|h| h.len() >= 8).ok_or_else(|| Error::corruption("truncated message"))?;
    let at = if header[..4] == [0xff; 4] { 8 } else { 4 };
    let message = datafusion::arrow::ipc::root_as_message(&header[at..])
        .map_err(|e| Error::corruption(format!("unreadable record batch message: {e}")))?;
    let Some(batch) = message.header_as_record_batch() else { return Ok(Vec::new()) };
    if batch.compression().is_none() {
        return Ok(Vec::new());
    }
    let body = data.slice(meta_len);
    let (Some(nodes), Some(buffers)) = (batch.nodes(), batch.buffers()) else {
        return Err(Error::corruption("a record batch message without nodes or buffers"));
    };
    if batch.compression().map(|c| c.codec()) != Some(datafusion::arrow::ipc::CompressionType::ZSTD) {
        return Err(Error::corruption("a record batch compressed otherwise than swingdb compresses (ZSTD)"));
    }
    let mut next = 0;
    let mut next_node = 0;
    let mut out = Vec::with_capacity(schema.fields().len());
    for field in schema.fields().iter() {
        let dt = field.data_type();
        // Buffers and nodes: a packed column's are its children's.
        let (count, node_count) = match dt {
            DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary => (3, 1),
            DataType::Boolean | DataType::Dictionary(..) => (2, 1),
            dt if dt.primitive_width().is_some() => (2, 1),
            dt if packed::physical_type(dt).is_some() => (5, 3),
            dt => {
                return Err(Error::corruption(format!(
                    "column {} of type {dt} in a compressed record batch",
                    field.name()
                )))
            }
        };
        let c = next_node;
        next_node += node_count;
        let node = (c < nodes.len()).then(|| nodes.get(c)).ok_or_else(|| Error::corruption("too few nodes"))?;
        let mut plain = true;
        let mut regions = Vec::with_capacity(count);
        for _ in 0..count {
            let spec = (next < buffers.len())
                .then(|| buffers.get(next))
                .ok_or_else(|| Error::corruption("a record batch lists too few buffers"))?;
            next += 1;
            let region = checked_slice(&body, spec.offset(), spec.length() as usize)?;
            if region.is_empty() {
                regions.push(None);
                continue;
            }
            let stated = region.get(..8).map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")));
            match stated {
                Some(-1) => {}
                Some(n) if n > 0 && is_compressible(dt) => plain = false,
                _ => {
                    return Err(Error::corruption(format!("column {}: a buffer of unknown compression", field.name())))
                }
            }
            regions.push(Some((stated == Some(-1), region.slice(8))));
        }
        if plain {
            out.push(None);
            continue;
        }
        let mixed = || Error::corruption(format!("column {}: some buffers compressed, some not", field.name()));
        if regions.iter().flatten().any(|(plain, _)| *plain) {
            return Err(mixed());
        }
        let validity = regions[0].take().map(|(_, r)| r);
        let others = regions[1..].iter().map(|r| r.as_ref().map(|(_, r)| r.clone())).collect::<Option<Vec<_>>>();
        let others = others.ok_or_else(mixed)?;
        let array = compressed_array(dt, node.length() as usize, validity, &others)
            .map_err(|e| Error::corruption(format!("column {}: {e}", field.name())))?;
        out.push(Some(array));
    }
    Ok(out)
}

fn checked_slice(buffer: &Buffer, offset: i64, len: usize) -> Result<Buffer> {
    let offset = usize::try_from(offset).map_err(|_| Error::corruption("negative block offset"))?;
    if offset.checked_add(len).is_none_or(|end| end > buffer.len()) {
        return Err(Error::corruption("block points outside the file"));
    }
    Ok(buffer.slice_with_length(offset, len))
}
