//! The manifest entries of inline segments (see [`crate::manifest::inline`]): a new
//! one holding a batch, and a transaction's tail grown by another.

use crate::error::Result;
use crate::manifest::inline::{InlineRows, TAIL_MAX_ROWS};
use crate::manifest::stats::{column_stats, merge_stats};
use crate::manifest::SegmentMeta;
use datafusion::arrow::array::RecordBatch;

/// An inline segment named `name` holding `batch`.
pub fn inline_segment(name: String, batch: RecordBatch) -> Result<SegmentMeta> {
    let stats = batch.columns().iter().map(|c| column_stats(std::slice::from_ref(c))).collect::<Result<Vec<_>>>()?;
    Ok(SegmentMeta {
        file: name,
        rows: batch.num_rows() as u64,
        bytes: 0,
        crc32: 0,
        layout_crc32: None,
        column_crc32: Vec::new(),
        stats,
        column_ids: None,
        inline: Some(InlineRows::new(batch.schema(), vec![batch])),
        deleted: Default::default(),
        origin: Vec::new(),
        encoded: false,
        narrowed: false,
        packed: false,
    })
}

/// The tail `tail` (an inline segment) with the rows of `added` (another, of
/// the same columns) after its own, under the tail's name; `None` when they
/// cannot be joined (not both inline, different columns, or a full tail),
/// or when the tail has deleted rows: a segment's rows, deleted ones
/// included, never repeat a key (see `storage::keys`), and a row added
/// after a deleted one may have its key.
pub fn grow_tail(tail: &SegmentMeta, added: &SegmentMeta) -> Result<Option<SegmentMeta>> {
    let (Some(rows), Some(more)) = (&tail.inline, &added.inline) else { return Ok(None) };
    let full = tail.rows + added.rows > TAIL_MAX_ROWS;
    if rows.schema() != more.schema() || tail.column_ids != added.column_ids || full || !tail.deleted.is_empty() {
        return Ok(None);
    }
    let mut grown = rows.clone();
    for batch in more.batches() {
        grown = grown.appended(batch.clone())?;
    }
    let stats = tail
        .stats
        .iter()
        .zip(&added.stats)
        .zip(rows.schema().fields())
        .map(|((a, b), field)| merge_stats(a, tail.rows, b, added.rows, field.data_type()))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(SegmentMeta { rows: tail.rows + added.rows, stats, inline: Some(grown), ..tail.clone() }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::inline::INLINE_MAX_BYTES;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use std::sync::Arc;

    fn row(id: i64, s: Option<&str>) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]));
        RecordBatch::try_new(schema, vec![Arc::new(Int64Array::from(vec![id])), Arc::new(StringArray::from(vec![s]))])
            .unwrap()
    }

    #[test]
    fn a_tail_keeps_its_rows_in_order_in_few_batches_with_exact_statistics() {
        let mut tail = inline_segment("t-1.inline".into(), row(5, None)).unwrap();
        for id in [3, 9, 4, 7, 1, 8, 2, 6, 10, 0] {
            let added = inline_segment(format!("t-{id}.inline"), row(id, Some(&format!("s{id}")))).unwrap();
            tail = grow_tail(&tail, &added).unwrap().expect("joins");
        }
        let rows = tail.inline.as_ref().unwrap();
        let stored: usize = rows.batches().iter().map(|b| b.num_rows()).sum();
        assert_eq!((tail.file.as_str(), tail.rows, stored), ("t-1.inline", 11, 11));
        assert!(rows.batches().len() <= 4, "{} batches", rows.batches().len());
        let ids: Vec<i64> = rows
            .batches()
            .iter()
            .flat_map(|b| b.column(0).as_any().downcast_ref::<Int64Array>().unwrap().values().to_vec())
            .collect();
        assert_eq!(ids, [5, 3, 9, 4, 7, 1, 8, 2, 6, 10, 0]);
        assert_eq!((tail.stats[0].min.as_deref(), tail.stats[0].max.as_deref()), (Some("0"), Some("10")));
        // Strings compare as text; the first row's NULL is counted, not a bound.
        assert_eq!(
            (tail.stats[1].min.as_deref(), tail.stats[1].max.as_deref(), tail.stats[1].nulls),
            (Some("s0"), Some("s9"), 1)
        );
    }

    #[test]
    fn inline_rows_survive_the_manifest_text_and_say_whether_they_fit() {
        let segment = inline_segment("t-1.inline".into(), row(42, Some("x"))).unwrap();
        let text = serde_json::to_string(&segment).unwrap();
        let back: SegmentMeta = serde_json::from_str(&text).unwrap();
        assert_eq!(back, segment);
        assert!(segment.inline.as_ref().unwrap().fits_manifest().unwrap());
        let long = "x".repeat(INLINE_MAX_BYTES);
        assert!(!inline_segment("t-2.inline".into(), row(1, Some(&long)))
            .unwrap()
            .inline
            .unwrap()
            .fits_manifest()
            .unwrap());
        let damaged = text.replacen("\"inline\":\"", "\"inline\":\"!!", 1);
        assert!(serde_json::from_str::<SegmentMeta>(&damaged).is_err());
    }
}
