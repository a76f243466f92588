//! A version as its change from the version before it: what a commit log
//! record holds instead of the whole manifest (see `storage/dir/log.rs`), so
//! that a commit writes, and every other process reads, what it changed
//! rather than every table and segment of the database.
//!
//! ```text
//! D{"format_version":F,"version":V,
//!   "tables":{"t":{"segments":{"modified":M,"pieces":[[0,41],{segment},[42,[7,8]],[43,57]]}},
//!             "u":{"whole":{table as in a manifest}}},
//!   "removed":["old"]}
//! ```
//! A changed table is either whole (new, or its columns, kind or
//! constraints changed) or only its segments: the new list, in order, as
//! pieces that are either `[a, b]` (segments `a..b` of the table in version
//! V-1, unchanged), `[a, [start, end, ...]]` (segment `a` of V-1 with more
//! rows deleted: the runs it adds, as `deleted` holds them; format version
//! 13), or a segment written out (new, or otherwise changed). So an UPDATE
//! of one row writes one run, not every mark of its segment (which may hold
//! tens of thousands: see `manifest/deleted.rs`). Tables not named are those
//! of version V-1; `removed` ones are gone. `F` is the format version the
//! whole manifest V would have, or 13 when the record adds marks that way
//! (an older build refuses it, asking for an upgrade).
//! The record's own checksum covers it; it carries none of its own.

use super::deleted::DeletedRows;
use super::json::{
    check_format_version, check_segments, content_format_version, decode_table, encode_table, TableJson,
};
use super::*;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserializer, Serializer};
use std::collections::HashMap;

/// The first byte of a delta record (a whole manifest begins with `{`).
pub const DELTA_MARK: u8 = b'D';

#[derive(Serialize)]
struct DeltaOut<'a> {
    format_version: u32,
    version: u64,
    tables: BTreeMap<&'a str, ChangeOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    removed: Vec<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum ChangeOut<'a> {
    Whole(Box<TableJson>),
    Segments { modified: u64, pieces: Vec<Piece<&'a SegmentMeta>> },
}

#[derive(Deserialize)]
struct DeltaIn {
    format_version: u32,
    version: u64,
    #[serde(default)]
    tables: BTreeMap<String, ChangeIn>,
    #[serde(default)]
    removed: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ChangeIn {
    Whole(Box<TableJson>),
    Segments { modified: u64, pieces: Vec<Piece<SegmentMeta>> },
}

/// Segments `a..b` of the table before, segment `a` of it with more rows
/// deleted, or one segment written out.
enum Piece<S> {
    Kept(usize, usize),
    Marked(usize, DeletedRows),
    New(S),
}

/// The second element of a piece written as a pair: where a run of kept
/// segments ends, or the deleted rows a segment adds.
#[derive(Deserialize)]
#[serde(untagged)]
enum PairEnd {
    End(usize),
    Marks(DeletedRows),
}

impl Serialize for Piece<&SegmentMeta> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Piece::Kept(a, b) => {
                let mut seq = serializer.serialize_seq(Some(2))?;
                seq.serialize_element(a)?;
                seq.serialize_element(b)?;
                seq.end()
            }
            Piece::Marked(a, more) => {
                let mut seq = serializer.serialize_seq(Some(2))?;
                seq.serialize_element(a)?;
                seq.serialize_element(more)?;
                seq.end()
            }
            Piece::New(segment) => segment.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Piece<SegmentMeta> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct PieceVisitor;
        impl<'de> Visitor<'de> for PieceVisitor {
            type Value = Piece<SegmentMeta>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a range [a, b] of kept segments, a segment's added marks [a, [..]] or a segment")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
                let a = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let b = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(1, &self))?;
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(3, &self));
                }
                Ok(match b {
                    PairEnd::End(b) => Piece::Kept(a, b),
                    PairEnd::Marks(more) => Piece::Marked(a, more),
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Self::Value, A::Error> {
                SegmentMeta::deserialize(de::value::MapAccessDeserializer::new(map)).map(Piece::New)
            }
        }
        deserializer.deserialize_any(PieceVisitor)
    }
}

/// `after` as pieces of `before`: runs of unchanged segments as ranges,
/// segments that only gained deleted rows as those rows, new or otherwise
/// changed segments written out.
fn pieces<'a>(before: &[SegmentMeta], after: &'a [SegmentMeta]) -> Vec<Piece<&'a SegmentMeta>> {
    let mut by_name: Option<HashMap<&str, usize>> = None;
    let (mut out, mut next) = (Vec::new(), 0);
    for segment in after {
        // Mostly the segment that followed the last one kept.
        let at = match before.get(next).filter(|b| b.file == segment.file) {
            Some(_) => Some(next),
            None => by_name
                .get_or_insert_with(|| before.iter().enumerate().map(|(i, b)| (b.file.as_str(), i)).collect())
                .get(segment.file.as_str())
                .copied(),
        };
        match at.filter(|&i| before[i] == *segment) {
            Some(i) => {
                match out.last_mut() {
                    Some(Piece::Kept(_, end)) if *end == i => *end += 1,
                    _ => out.push(Piece::Kept(i, i + 1)),
                }
                next = i + 1;
            }
            None => match at.and_then(|i| Some((i, more_deleted(&before[i], segment)?))) {
                Some((i, more)) => {
                    out.push(Piece::Marked(i, more));
                    next = i + 1;
                }
                None => out.push(Piece::New(segment)),
            },
        }
    }
    out
}

/// The rows `after` deletes beyond `before`, when that is all that differs
/// between the two (marks are only added: see `manifest/deleted.rs`).
fn more_deleted(before: &SegmentMeta, after: &SegmentMeta) -> Option<DeletedRows> {
    let same_but_marks = *before == SegmentMeta { deleted: before.deleted.clone(), ..after.clone() };
    (same_but_marks && after.deleted.covers(&before.deleted)).then(|| after.deleted.minus(&before.deleted))
}

/// The format version of a delta record that adds marks to a segment as
/// [`Piece::Marked`] (older builds read only whole segments).
const MARKED_FORMAT_VERSION: u32 = 13;

/// Whether `a` and `b` differ only in their segments and version.
fn same_but_segments(a: &TableMeta, b: &TableMeta) -> bool {
    a.schema == b.schema
        && a.definition == b.definition
        && a.constraints == b.constraints
        && a.column_ids == b.column_ids
}

impl Manifest {
    /// The delta record that makes this version from `before`, the version
    /// before it: [`DELTA_MARK`] and the JSON of the module docs.
    pub fn delta_json(&self, before: &Manifest) -> Vec<u8> {
        debug_assert_eq!(self.version, before.version + 1);
        let mut tables = BTreeMap::new();
        let mut format_version = content_format_version(self);
        for (name, table) in &self.tables {
            let change = match before.tables.get(name) {
                Some(old) if Arc::ptr_eq(old, table) => continue,
                Some(old) if same_but_segments(old, table) => {
                    let pieces = pieces(&old.segments, &table.segments);
                    if pieces.iter().any(|p| matches!(p, Piece::Marked(..))) {
                        format_version = format_version.max(MARKED_FORMAT_VERSION);
                    }
                    ChangeOut::Segments { modified: table.modified, pieces }
                }
                _ => ChangeOut::Whole(Box::new(encode_table(table))),
            };
            tables.insert(name.as_str(), change);
        }
        let removed = before.tables.keys().filter(|n| !self.tables.contains_key(*n)).map(String::as_str).collect();
        let delta = DeltaOut { format_version, version: self.version, tables, removed };
        let mut bytes = vec![DELTA_MARK];
        serde_json::to_writer(&mut bytes, &delta).expect("a delta serializes");
        bytes
    }

    /// The version a delta record read from `origin` (a path, for error
    /// messages) makes from this one, the version before it.
    pub fn apply_delta(&self, bytes: &[u8], origin: &str) -> Result<Manifest> {
        let damaged = |what: String| Error::corruption(format!("manifest {origin} is damaged: {what}"));
        let json = bytes.strip_prefix(&[DELTA_MARK]).ok_or_else(|| damaged("it is not a change record".into()))?;
        let delta: DeltaIn = serde_json::from_slice(json).map_err(|e| damaged(e.to_string()))?;
        check_format_version(delta.format_version, origin)?;
        if delta.version != self.version + 1 {
            return Err(damaged(format!("it is version {}, not the one after {}", delta.version, self.version)));
        }
        let mut tables = self.tables.clone();
        for name in &delta.removed {
            tables
                .remove(name)
                .ok_or_else(|| damaged(format!("it removes '{name}', which version {} lacks", self.version)))?;
        }
        for (name, change) in delta.tables {
            let meta = match change {
                ChangeIn::Whole(table) => decode_table(&name, *table, origin)?,
                ChangeIn::Segments { modified, pieces } => {
                    let old = tables.get(&name).ok_or_else(|| {
                        damaged(format!("it changes table '{name}', which version {} lacks", self.version))
                    })?;
                    let mut segments = Vec::with_capacity(pieces.len());
                    for piece in pieces {
                        match piece {
                            Piece::Kept(a, b) => {
                                segments.extend_from_slice(old.segments.get(a..b).ok_or_else(|| {
                                    damaged(format!("table '{name}' keeps segments {a}..{b} of {}", old.segments.len()))
                                })?)
                            }
                            Piece::Marked(a, more) => {
                                let old = old.segments.get(a).ok_or_else(|| {
                                    damaged(format!("table '{name}' marks segment {a} of {}", old.segments.len()))
                                })?;
                                let segment = SegmentMeta { deleted: old.deleted.union(&more), ..old.clone() };
                                check_segments(&name, [&segment], origin)?;
                                segments.push(segment);
                            }
                            Piece::New(segment) => {
                                check_segments(&name, [&segment], origin)?;
                                segments.push(segment);
                            }
                        }
                    }
                    TableMeta {
                        schema: old.schema.clone(),
                        segments,
                        modified,
                        definition: old.definition.clone(),
                        constraints: old.constraints.clone(),
                        column_ids: old.column_ids.clone(),
                    }
                }
            };
            tables.insert(name, Arc::new(meta));
        }
        Ok(Manifest { version: delta.version, tables })
    }
}
