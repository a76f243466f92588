//! Segment statistics in the shape DataFusion's pruner asks for: which
//! segments of a table a scan's filters may skip (see `SegmentTable`).

use datafusion::arrow::array::{ArrayRef, BooleanArray, UInt64Array};
use datafusion::common::{Column, ScalarValue};
use datafusion::physical_optimizer::pruning::PruningStatistics;
use std::collections::HashSet;
use std::sync::Arc;
use swingdb_storage::TableMeta;

/// Segment statistics in the shape DataFusion's pruner asks for.
pub(super) struct SegmentStats<'a> {
    pub(super) meta: &'a TableMeta,
}

impl SegmentStats<'_> {
    fn bound(&self, column: &Column, pick: fn(&swingdb_storage::ColumnStats) -> &Option<String>) -> Option<ArrayRef> {
        let idx = self.meta.schema.index_of(&column.name).ok()?;
        let dt = self.meta.schema.field(idx).data_type();
        let values = self.meta.segments.iter().map(|s| {
            self.meta
                .column_stats(s, idx)
                .and_then(|st| pick(&st).clone())
                .and_then(|text| ScalarValue::try_from_string(text, dt).ok())
                .unwrap_or(ScalarValue::try_from(dt).unwrap_or(ScalarValue::Null))
        });
        ScalarValue::iter_to_array(values).ok()
    }
}

impl PruningStatistics for SegmentStats<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, |s| &s.min)
    }
    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, |s| &s.max)
    }
    fn num_containers(&self) -> usize {
        self.meta.segments.len()
    }
    fn null_counts(&self, column: &Column) -> Option<ArrayRef> {
        let idx = self.meta.schema.index_of(&column.name).ok()?;
        let counts: UInt64Array =
            self.meta.segments.iter().map(|s| self.meta.column_stats(s, idx).map(|st| st.nulls)).collect();
        Some(Arc::new(counts))
    }
    fn row_counts(&self) -> Option<ArrayRef> {
        let counts: UInt64Array = self.meta.segments.iter().map(|s| Some(s.rows)).collect();
        Some(Arc::new(counts))
    }
    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}
