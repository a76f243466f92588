//! Writing Arrow batches as PostgreSQL's binary COPY format (the export
//! side of a pipe to PostgreSQL; `binary.rs` reads it).

use super::*;

/// Writes the binary COPY header.
pub fn write_header(out: &mut BytesMut) {
    out.put_slice(SIGNATURE);
    out.put_i32(0);
    out.put_i32(0);
}

/// Writes the binary COPY trailer.
pub fn write_trailer(out: &mut BytesMut) {
    out.put_i16(-1);
}

/// Encodes `batch` (columns already cast to `kinds`' Arrow types) as tuples.
pub fn encode_batch(names: &[String], kinds: &[PgKind], batch: &RecordBatch, out: &mut BytesMut) -> Result<()> {
    for row in 0..batch.num_rows() {
        out.put_i16(kinds.len() as i16);
        for ((name, kind), column) in names.iter().zip(kinds).zip(batch.columns()) {
            encode_value(name, kind, column.as_ref(), row, out)?;
        }
    }
    Ok(())
}

/// Writes one field (length and value, or -1 for NULL).
pub(super) fn encode_value(
    column: &str,
    kind: &PgKind,
    array: &dyn Array,
    row: usize,
    out: &mut BytesMut,
) -> Result<()> {
    if array.is_null(row) {
        out.put_i32(-1);
        return Ok(());
    }
    let any = array.as_any();
    macro_rules! fixed {
        ($array:ty, $len:expr, $put:expr) => {{
            let a = any.downcast_ref::<$array>().expect("cast to the column's type");
            out.put_i32($len);
            $put(out, a.value(row));
        }};
    }
    match kind {
        PgKind::Bool => fixed!(BooleanArray, 1, |o: &mut BytesMut, v: bool| o.put_u8(v as u8)),
        PgKind::Int2 => fixed!(Int16Array, 2, |o: &mut BytesMut, v| o.put_i16(v)),
        PgKind::Int4 => fixed!(Int32Array, 4, |o: &mut BytesMut, v| o.put_i32(v)),
        PgKind::Int8 | PgKind::Oid => fixed!(Int64Array, 8, |o: &mut BytesMut, v| o.put_i64(v)),
        PgKind::Float4 => fixed!(Float32Array, 4, |o: &mut BytesMut, v| o.put_f32(v)),
        PgKind::Float8 => fixed!(Float64Array, 8, |o: &mut BytesMut, v| o.put_f64(v)),
        PgKind::Date => fixed!(Date32Array, 4, |o: &mut BytesMut, v: i32| o.put_i32(v - EPOCH_DAYS)),
        PgKind::Time => fixed!(Time64MicrosecondArray, 8, |o: &mut BytesMut, v| o.put_i64(v)),
        PgKind::Timestamp | PgKind::TimestampTz => {
            fixed!(TimestampMicrosecondArray, 8, |o: &mut BytesMut, v: i64| o.put_i64(v - EPOCH_MICROS))
        }
        PgKind::Text => {
            let v = any.downcast_ref::<StringArray>().expect("cast to text").value(row);
            out.put_i32(v.len() as i32);
            out.put_slice(v.as_bytes());
        }
        PgKind::Uuid => {
            let v = any.downcast_ref::<StringArray>().expect("cast to text").value(row);
            let hex: Vec<u8> = v.bytes().filter(|b| *b != b'-').collect();
            let parsed: Option<Vec<u8>> = (hex.len() == 32)
                .then(|| {
                    hex.chunks(2)
                        .map(|p| std::str::from_utf8(p).ok().and_then(|h| u8::from_str_radix(h, 16).ok()))
                        .collect()
                })
                .flatten();
            let bytes = parsed.ok_or_else(|| bad(column, format!("'{v}' is not a UUID")))?;
            out.put_i32(16);
            out.put_slice(&bytes);
        }
        PgKind::Jsonb => {
            let v = any.downcast_ref::<StringArray>().expect("cast to text").value(row);
            out.put_i32(v.len() as i32 + 1);
            out.put_u8(1);
            out.put_slice(v.as_bytes());
        }
        PgKind::Bytea => {
            let v = any.downcast_ref::<BinaryArray>().expect("cast to binary").value(row);
            out.put_i32(v.len() as i32);
            out.put_slice(v);
        }
        PgKind::Numeric { scale, .. } => {
            let v = any.downcast_ref::<Decimal128Array>().expect("cast to decimal").value(row);
            let start = out.len();
            out.put_i32(0);
            encode_numeric(v, *scale, out);
            let len = (out.len() - start - 4) as i32;
            out[start..start + 4].copy_from_slice(&len.to_be_bytes());
        }
        PgKind::Array(element) => {
            let list = any.downcast_ref::<ListArray>().expect("cast to list");
            let items = list.value(row);
            let start = out.len();
            out.put_i32(0);
            out.put_i32(1);
            out.put_i32(items.null_count().min(1) as i32);
            out.put_u32(element.oid());
            out.put_i32(items.len() as i32);
            out.put_i32(1);
            for i in 0..items.len() {
                encode_value(column, element, items.as_ref(), i, out)?;
            }
            let len = (out.len() - start - 4) as i32;
            out[start..start + 4].copy_from_slice(&len.to_be_bytes());
        }
    }
    Ok(())
}

/// A scaled i128 as NUMERIC's binary form.
pub(super) fn encode_numeric(value: i128, scale: i8, out: &mut BytesMut) {
    let scale = scale.max(0) as usize;
    let digits = value.unsigned_abs().to_string();
    let digits =
        if digits.len() <= scale { format!("{}{digits}", "0".repeat(scale + 1 - digits.len())) } else { digits };
    let (int_part, frac_part) = digits.split_at(digits.len() - scale);
    let int_pad = (4 - int_part.len() % 4) % 4;
    let int_part = format!("{}{int_part}", "0".repeat(int_pad));
    let frac_pad = (4 - frac_part.len() % 4) % 4;
    let frac_part = format!("{frac_part}{}", "0".repeat(frac_pad));
    let group = |s: &str| -> Vec<i16> {
        s.as_bytes().chunks(4).map(|c| std::str::from_utf8(c).unwrap().parse().unwrap()).collect()
    };
    let mut groups = group(&int_part);
    let mut weight = groups.len() as i32 - 1;
    groups.extend(group(&frac_part));
    while groups.first() == Some(&0) && weight >= 0 {
        groups.remove(0);
        weight -= 1;
    }
    while groups.last() == Some(&0) {
        groups.pop();
    }
    if groups.is_empty() {
        weight = 0;
    }
    out.put_i16(groups.len() as i16);
    out.put_i16(weight as i16);
    out.put_u16(if value < 0 { 0x4000 } else { 0 });
    out.put_i16(scale as i16);
    for g in groups {
        out.put_i16(g);
    }
}
