//! PostgreSQL's binary COPY format, straight to and from Arrow arrays: no text
//! is formatted or parsed on the way, and every type either maps exactly or is
//! refused with an error naming the column (never a silent fallback to text).
//!
//! A stream is a header (`PGCOPY\n\xff\r\n\0`, flags, extension), then one
//! tuple per row (an i16 field count, then each field as an i32 length, -1 for
//! NULL, and the value in the type's binary "send" format), then the trailer
//! (field count -1). Integers are big-endian; dates and timestamps count days
//! and microseconds from 2000-01-01.

use bytes::{Buf, BufMut, BytesMut};
use datafusion::arrow::array::*;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

/// The header every binary COPY stream starts with.
mod encode;

pub use encode::{encode_batch, write_header, write_trailer};

pub const SIGNATURE: &[u8] = b"PGCOPY\n\xff\r\n\0";

/// Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
const EPOCH_DAYS: i32 = 10_957;
/// Microseconds from 1970-01-01 to 2000-01-01.
const EPOCH_MICROS: i64 = 946_684_800_000_000;

/// Scale given to NUMERIC columns that declare none (a query's, or an
/// unconstrained column's); values with more decimal places are refused.
pub const DEFAULT_NUMERIC_SCALE: i8 = 10;

/// A PostgreSQL type this module converts, by what its binary form holds.
#[derive(Debug, Clone, PartialEq)]
pub enum PgKind {
    /// `boolean`.
    Bool,
    /// `smallint`.
    Int2,
    /// `integer`.
    Int4,
    /// `bigint`.
    Int8,
    /// `oid` (unsigned 32-bit, read as bigint).
    Oid,
    /// `real`.
    Float4,
    /// `double precision`.
    Float8,
    /// `numeric(precision, scale)`.
    Numeric { precision: u8, scale: i8 },
    /// `text`, `varchar`, `char(n)`, `name`, `json`.
    Text,
    /// `jsonb` (a version byte, then the text).
    Jsonb,
    /// `bytea`.
    Bytea,
    /// `uuid` (16 bytes, as its usual text form).
    Uuid,
    /// `date`.
    Date,
    /// `time` (microseconds since midnight).
    Time,
    /// `timestamp` (without time zone).
    Timestamp,
    /// `timestamp with time zone` (an instant, kept in UTC).
    TimestampTz,
    /// A one-dimensional array.
    Array(Box<PgKind>),
}

impl PgKind {
    /// The kind of type `oid` with modifier `typmod` (-1 when unknown), or
    /// `None` if this module does not convert it.
    pub fn from_oid(oid: u32, typmod: i32) -> Option<Self> {
        Some(match oid {
            16 => PgKind::Bool,
            17 => PgKind::Bytea,
            19 | 25 | 114 | 1042 | 1043 => PgKind::Text,
            20 => PgKind::Int8,
            21 => PgKind::Int2,
            23 => PgKind::Int4,
            26 => PgKind::Oid,
            700 => PgKind::Float4,
            701 => PgKind::Float8,
            1082 => PgKind::Date,
            1083 => PgKind::Time,
            1114 => PgKind::Timestamp,
            1184 => PgKind::TimestampTz,
            1700 => {
                if typmod >= 4 {
                    let m = typmod - 4;
                    let precision = ((m >> 16) & 0xffff) as u8;
                    let scale = (m & 0xffff) as i16 as i8;
                    if (1..=38).contains(&precision) && scale >= 0 {
                        PgKind::Numeric { precision, scale }
                    } else {
                        return None;
                    }
                } else {
                    PgKind::Numeric { precision: 38, scale: DEFAULT_NUMERIC_SCALE }
                }
            }
            2950 => PgKind::Uuid,
            3802 => PgKind::Jsonb,
            1000 => PgKind::Array(Box::new(PgKind::Bool)),
            1001 => PgKind::Array(Box::new(PgKind::Bytea)),
            1005 => PgKind::Array(Box::new(PgKind::Int2)),
            1007 => PgKind::Array(Box::new(PgKind::Int4)),
            1016 => PgKind::Array(Box::new(PgKind::Int8)),
            1021 => PgKind::Array(Box::new(PgKind::Float4)),
            1022 => PgKind::Array(Box::new(PgKind::Float8)),
            1009 | 1014 | 1015 | 199 => PgKind::Array(Box::new(PgKind::Text)),
            1182 => PgKind::Array(Box::new(PgKind::Date)),
            1115 => PgKind::Array(Box::new(PgKind::Timestamp)),
            1185 => PgKind::Array(Box::new(PgKind::TimestampTz)),
            1231 => PgKind::Array(Box::new(match PgKind::from_oid(1700, typmod)? {
                n @ PgKind::Numeric { .. } => n,
                _ => return None,
            })),
            2951 => PgKind::Array(Box::new(PgKind::Uuid)),
            _ => return None,
        })
    }

    /// The Arrow type of its values.
    pub fn arrow_type(&self) -> DataType {
        match self {
            PgKind::Bool => DataType::Boolean,
            PgKind::Int2 => DataType::Int16,
            PgKind::Int4 => DataType::Int32,
            PgKind::Int8 | PgKind::Oid => DataType::Int64,
            PgKind::Float4 => DataType::Float32,
            PgKind::Float8 => DataType::Float64,
            PgKind::Numeric { precision, scale } => DataType::Decimal128(*precision, *scale),
            PgKind::Text | PgKind::Jsonb | PgKind::Uuid => DataType::Utf8,
            PgKind::Bytea => DataType::Binary,
            PgKind::Date => DataType::Date32,
            PgKind::Time => DataType::Time64(TimeUnit::Microsecond),
            PgKind::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
            PgKind::TimestampTz => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            PgKind::Array(e) => DataType::List(Arc::new(Field::new("item", e.arrow_type(), true))),
        }
    }

    /// The kind (and SQL type name, for CREATE TABLE) an Arrow type is stored as.
    pub fn for_arrow(data_type: &DataType) -> Option<(Self, String)> {
        Some(match data_type {
            DataType::Boolean => (PgKind::Bool, "boolean".into()),
            DataType::Int8 | DataType::Int16 | DataType::UInt8 => (PgKind::Int2, "smallint".into()),
            DataType::Int32 | DataType::UInt16 => (PgKind::Int4, "integer".into()),
            DataType::Int64 | DataType::UInt32 | DataType::UInt64 => (PgKind::Int8, "bigint".into()),
            DataType::Float16 | DataType::Float32 => (PgKind::Float4, "real".into()),
            DataType::Float64 => (PgKind::Float8, "double precision".into()),
            DataType::Decimal128(p, s) if *s >= 0 => {
                (PgKind::Numeric { precision: *p, scale: *s }, format!("numeric({p},{s})"))
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => (PgKind::Text, "text".into()),
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView => (PgKind::Bytea, "bytea".into()),
            DataType::Date32 | DataType::Date64 => (PgKind::Date, "date".into()),
            DataType::Time32(_) | DataType::Time64(_) => (PgKind::Time, "time".into()),
            DataType::Timestamp(_, None) => (PgKind::Timestamp, "timestamp".into()),
            DataType::Timestamp(_, Some(_)) => (PgKind::TimestampTz, "timestamptz".into()),
            DataType::List(f) | DataType::LargeList(f) => {
                let (inner, name) = Self::for_arrow(f.data_type())?;
                if matches!(inner, PgKind::Array(_)) {
                    return None;
                }
                (PgKind::Array(Box::new(inner)), format!("{name}[]"))
            }
            _ => return None,
        })
    }

    /// The element type's OID, for array headers.
    fn oid(&self) -> u32 {
        match self {
            PgKind::Bool => 16,
            PgKind::Bytea => 17,
            PgKind::Int8 => 20,
            PgKind::Int2 => 21,
            PgKind::Int4 => 23,
            PgKind::Text => 25,
            PgKind::Oid => 26,
            PgKind::Float4 => 700,
            PgKind::Float8 => 701,
            PgKind::Date => 1082,
            PgKind::Time => 1083,
            PgKind::Timestamp => 1114,
            PgKind::TimestampTz => 1184,
            PgKind::Numeric { .. } => 1700,
            PgKind::Uuid => 2950,
            PgKind::Jsonb => 3802,
            PgKind::Array(_) => 0,
        }
    }
}

/// A column of a PostgreSQL relation or query result.
#[derive(Debug, Clone)]
pub struct PgColumn {
    /// Its name.
    pub name: String,
    /// Its type.
    pub kind: PgKind,
}

/// The Arrow schema of `columns` (all nullable).
pub fn arrow_schema(columns: &[PgColumn]) -> SchemaRef {
    Arc::new(Schema::new(columns.iter().map(|c| Field::new(&c.name, c.kind.arrow_type(), true)).collect::<Vec<_>>()))
}

fn bad(column: &str, what: impl std::fmt::Display) -> Error {
    Error::data(format!("PostgreSQL column '{column}': {what}"))
}

/// Decodes a binary COPY stream into record batches of `rows_per_batch`.
pub struct Decoder {
    columns: Vec<PgColumn>,
    schema: SchemaRef,
    builders: Vec<Box<dyn ArrayBuilder>>,
    buffer: BytesMut,
    header_done: bool,
    finished: bool,
    rows: usize,
    rows_per_batch: usize,
}

impl Decoder {
    /// A decoder of rows of `columns`.
    pub fn new(columns: Vec<PgColumn>, rows_per_batch: usize) -> Self {
        let schema = arrow_schema(&columns);
        let builders = schema.fields().iter().map(|f| make_builder(f.data_type(), rows_per_batch)).collect();
        Self {
            columns,
            schema,
            builders,
            buffer: BytesMut::new(),
            header_done: false,
            finished: false,
            rows: 0,
            rows_per_batch,
        }
    }

    /// Takes the next chunk of the stream; returns the batches completed.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<RecordBatch>> {
        self.buffer.extend_from_slice(chunk);
        let mut batches = Vec::new();
        if !self.header_done {
            if self.buffer.len() < SIGNATURE.len() + 8 {
                return Ok(batches);
            }
            if &self.buffer[..SIGNATURE.len()] != SIGNATURE {
                return Err(Error::operational("PostgreSQL did not send a binary COPY stream"));
            }
            let ext =
                u32::from_be_bytes(self.buffer[SIGNATURE.len() + 4..SIGNATURE.len() + 8].try_into().unwrap()) as usize;
            if self.buffer.len() < SIGNATURE.len() + 8 + ext {
                return Ok(batches);
            }
            self.buffer.advance(SIGNATURE.len() + 8 + ext);
            self.header_done = true;
        }
        while !self.finished {
            let Some(len) = self.tuple_len()? else { break };
            let tuple = self.buffer.split_to(len);
            if i16::from_be_bytes([tuple[0], tuple[1]]) == -1 {
                self.finished = true;
                break;
            }
            self.decode_tuple(&tuple[2..])?;
            self.rows += 1;
            if self.rows == self.rows_per_batch {
                batches.push(self.flush()?);
            }
        }
        Ok(batches)
    }

    /// Ends the stream: the last (partial) batch. Fails if the trailer never came.
    pub fn finish(&mut self) -> Result<Option<RecordBatch>> {
        if !self.finished {
            return Err(Error::operational("the binary COPY stream from PostgreSQL ended early"));
        }
        if self.rows == 0 {
            return Ok(None);
        }
        self.flush().map(Some)
    }

    /// Length of the complete tuple at the front of the buffer, if it is all there.
    fn tuple_len(&self) -> Result<Option<usize>> {
        let b = &self.buffer[..];
        if b.len() < 2 {
            return Ok(None);
        }
        let fields = i16::from_be_bytes([b[0], b[1]]);
        if fields == -1 {
            return Ok(Some(2));
        }
        if fields as usize != self.columns.len() {
            return Err(Error::operational(format!(
                "PostgreSQL sent a row of {fields} fields, {} were expected",
                self.columns.len()
            )));
        }
        let mut at = 2;
        for _ in 0..fields {
            if b.len() < at + 4 {
                return Ok(None);
            }
            let len = i32::from_be_bytes(b[at..at + 4].try_into().unwrap());
            at += 4 + len.max(0) as usize;
        }
        Ok((b.len() >= at).then_some(at))
    }

    fn decode_tuple(&mut self, mut fields: &[u8]) -> Result<()> {
        for (column, builder) in self.columns.iter().zip(self.builders.iter_mut()) {
            let len = i32::from_be_bytes(fields[..4].try_into().unwrap());
            fields = &fields[4..];
            let value = if len < 0 {
                None
            } else {
                let (v, rest) = fields.split_at(len as usize);
                fields = rest;
                Some(v)
            };
            append(&column.name, &column.kind, builder.as_mut(), value)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        self.rows = 0;
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(|b| b.finish()).collect();
        Ok(RecordBatch::try_new(self.schema.clone(), arrays)?)
    }
}

fn be<const N: usize>(column: &str, v: &[u8]) -> Result<[u8; N]> {
    v.try_into().map_err(|_| bad(column, format!("a value of {} bytes where {N} were expected", v.len())))
}

fn downcast<T: 'static>(builder: &mut dyn ArrayBuilder) -> &mut T {
    builder.as_any_mut().downcast_mut::<T>().expect("builder matches its kind")
}

/// Appends one value (or NULL) in `kind`'s binary form to `builder`.
fn append(column: &str, kind: &PgKind, builder: &mut dyn ArrayBuilder, value: Option<&[u8]>) -> Result<()> {
    macro_rules! put {
        ($builder:ty, |$v:ident| $convert:expr) => {{
            let b = downcast::<$builder>(builder);
            match value {
                None => b.append_null(),
                Some($v) => b.append_value($convert?),
            }
        }};
    }
    match kind {
        PgKind::Bool => put!(BooleanBuilder, |v| Ok::<_, Error>(be::<1>(column, v)?[0] != 0)),
        PgKind::Int2 => put!(Int16Builder, |v| Ok::<_, Error>(i16::from_be_bytes(be(column, v)?))),
        PgKind::Int4 => put!(Int32Builder, |v| Ok::<_, Error>(i32::from_be_bytes(be(column, v)?))),
        PgKind::Int8 => put!(Int64Builder, |v| Ok::<_, Error>(i64::from_be_bytes(be(column, v)?))),
        PgKind::Oid => put!(Int64Builder, |v| Ok::<_, Error>(u32::from_be_bytes(be(column, v)?) as i64)),
        PgKind::Float4 => put!(Float32Builder, |v| Ok::<_, Error>(f32::from_be_bytes(be(column, v)?))),
        PgKind::Float8 => put!(Float64Builder, |v| Ok::<_, Error>(f64::from_be_bytes(be(column, v)?))),
        PgKind::Numeric { scale, .. } => put!(Decimal128Builder, |v| decode_numeric(column, v, *scale)),
        PgKind::Text => {
            put!(StringBuilder, |v| std::str::from_utf8(v).map_err(|_| bad(column, "text that is not UTF-8")))
        }
        PgKind::Jsonb => put!(StringBuilder, |v| match v.split_first() {
            Some((1, text)) => std::str::from_utf8(text).map_err(|_| bad(column, "jsonb that is not UTF-8")),
            _ => Err(bad(column, "an unknown jsonb version")),
        }),
        PgKind::Uuid => put!(StringBuilder, |v| format_uuid(&be::<16>(column, v)?)),
        PgKind::Bytea => put!(BinaryBuilder, |v| Ok::<_, Error>(v)),
        PgKind::Date => put!(Date32Builder, |v| {
            let days = i32::from_be_bytes(be(column, v)?);
            if days == i32::MAX || days == i32::MIN {
                return Err(bad(column, "the date 'infinity' has no Arrow equivalent; filter or cast it in a query"));
            }
            days.checked_add(EPOCH_DAYS).ok_or_else(|| bad(column, "a date out of range"))
        }),
        PgKind::Time => put!(Time64MicrosecondBuilder, |v| Ok::<_, Error>(i64::from_be_bytes(be(column, v)?))),
        PgKind::Timestamp | PgKind::TimestampTz => put!(TimestampMicrosecondBuilder, |v| {
            let micros = i64::from_be_bytes(be(column, v)?);
            if micros == i64::MAX || micros == i64::MIN {
                return Err(bad(
                    column,
                    "the timestamp 'infinity' has no Arrow equivalent; filter or cast it in a query",
                ));
            }
            micros.checked_add(EPOCH_MICROS).ok_or_else(|| bad(column, "a timestamp out of range"))
        }),
        PgKind::Array(element) => {
            let b = downcast::<ListBuilder<Box<dyn ArrayBuilder>>>(builder);
            let Some(v) = value else {
                b.append_null();
                return Ok(());
            };
            let header = |at: usize| -> Result<i32> {
                Ok(i32::from_be_bytes(be(column, v.get(at..at + 4).ok_or_else(|| bad(column, "a short array"))?)?))
            };
            let dims = header(0)?;
            if dims == 0 {
                b.append(true);
                return Ok(());
            }
            if dims != 1 {
                return Err(bad(
                    column,
                    format!("a {dims}-dimensional array; only one-dimensional arrays are supported"),
                ));
            }
            let count = header(12)?.max(0) as usize;
            let mut at = 20;
            for _ in 0..count {
                let len = header(at)?;
                at += 4;
                let item = if len < 0 {
                    None
                } else {
                    let item = v.get(at..at + len as usize).ok_or_else(|| bad(column, "a short array"))?;
                    at += len as usize;
                    Some(item)
                };
                append(column, element, b.values().as_mut(), item)?;
            }
            b.append(true);
        }
    }
    Ok(())
}

fn format_uuid(b: &[u8; 16]) -> Result<String> {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32]))
}

/// NUMERIC's binary form (base-10000 digits) as an i128 scaled by `scale`.
fn decode_numeric(column: &str, v: &[u8], scale: i8) -> Result<i128> {
    if v.len() < 8 {
        return Err(bad(column, "a short numeric"));
    }
    let word = |i: usize| i16::from_be_bytes([v[2 * i], v[2 * i + 1]]);
    let (ndigits, weight, sign) = (word(0) as usize, word(1) as i32, word(2) as u16);
    match sign {
        0x0000 | 0x4000 => {}
        0xC000 => {
            return Err(bad(column, "NaN does not fit a DECIMAL; filter it or cast the column to double precision"))
        }
        _ => {
            return Err(bad(
                column,
                "an infinite numeric does not fit a DECIMAL; filter it or cast the column to double precision",
            ))
        }
    }
    if v.len() < 8 + 2 * ndigits {
        return Err(bad(column, "a short numeric"));
    }
    let overflow = || bad(column, format!("a numeric value too large for DECIMAL(38,{scale}); cast it in a query"));
    let mut acc: i128 = 0;
    for i in 0..ndigits {
        acc = acc.checked_mul(10_000).and_then(|a| a.checked_add(word(4 + i) as i128)).ok_or_else(overflow)?;
    }
    // acc * 10000^(weight - ndigits + 1) * 10^scale
    let power = 4 * (weight - ndigits as i32 + 1) + scale as i32;
    if power >= 0 {
        for _ in 0..power {
            acc = acc.checked_mul(10).ok_or_else(overflow)?;
        }
    } else {
        for _ in 0..-power {
            if acc % 10 != 0 {
                return Err(bad(column, format!("a value with more than {scale} decimal places; cast the column to numeric(p,s) with a larger scale")));
            }
            acc /= 10;
        }
    }
    Ok(if sign == 0x4000 { -acc } else { acc })
}

#[cfg(test)]
mod tests;
