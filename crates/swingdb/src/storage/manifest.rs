//! Manifests: the immutable, versioned description of a whole database.
//!
//! Version N of a database is the file `manifests/<N>.json`. It lists every table,
//! its schema and the segments that hold its rows, with sizes, checksums and
//! per-column statistics. A manifest is written once and never changed.

use crate::error::{Error, Result};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::Arc;

/// The newest on-disk format version this build reads. Version 2 added the
/// manifest checksum (version 1 manifests are read without); version 3 added
/// views, and is written only by databases that have one, so that older
/// builds refuse them (they would take a view for an empty table) while
/// still opening every other database; so do keys and defaults, which an
/// older build would not enforce.
pub const FORMAT_VERSION: u32 = 3;

/// The format version of a manifest without views (and of new databases'
/// marker files, so older builds still open them).
pub const PLAIN_FORMAT_VERSION: u32 = 2;

/// The first format version whose manifests must carry a checksum.
const CHECKSUMMED_SINCE: u32 = 2;

/// Minimum and maximum of one column in one segment, as text in the column's own
/// type (cast back on use), plus its NULL count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnStats {
    /// Smallest non-NULL value, if known.
    pub min: Option<String>,
    /// Largest non-NULL value, if known.
    pub max: Option<String>,
    /// Number of NULLs.
    pub nulls: u64,
}

/// One immutable Arrow IPC file holding some rows of one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentMeta {
    /// File name inside the database's `segments/` directory.
    pub file: String,
    /// Number of rows.
    pub rows: u64,
    /// Exact file size in bytes.
    pub bytes: u64,
    /// CRC-32 of the whole file.
    pub crc32: u32,
    /// CRC-32 of the file's Arrow metadata (footer, message headers and
    /// dictionaries), checked when the segment is mapped. Absent in manifests
    /// written before per-column checksums: those files are checked whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_crc32: Option<u32>,
    /// CRC-32 of each column's buffers, in schema order, checked the first time
    /// a query reads the column: a query touching 2 of 10 columns reads and
    /// checks only those.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_crc32: Vec<u32>,
    /// Per-column statistics, in schema order.
    pub stats: Vec<ColumnStats>,
}

/// A column as stored in a manifest: the Arrow type is kept as its textual form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ColumnMeta {
    name: String,
    #[serde(rename = "type")]
    data_type: String,
    nullable: bool,
}

/// What a table promises about its rows beyond their types: keys (enforced
/// on every write) and the values of columns an INSERT leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Constraints {
    /// The PRIMARY KEY's columns (also NOT NULL in the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_key: Option<Vec<String>>,
    /// Each UNIQUE constraint's columns (NULLs never collide).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unique: Vec<Vec<String>>,
    /// DEFAULT expressions, as SQL text, by column.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, String>,
    /// CHECK conditions, as SQL text: each row must not make one false.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<String>,
    /// Unique indexes (`CREATE UNIQUE INDEX name ON t (columns)`): their columns, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unique_indexes: BTreeMap<String, Vec<String>>,
}

impl Constraints {
    /// Whether there is nothing to enforce or fill in.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Every key (the primary key first) with its SQL name, e.g. `PRIMARY KEY (id)`.
    pub fn keys(&self) -> impl Iterator<Item = (String, &[String])> {
        let primary = self.primary_key.iter().map(|cols| (format!("PRIMARY KEY ({})", cols.join(", ")), cols.as_slice()));
        let unique = self.unique.iter().map(|cols| (format!("UNIQUE ({})", cols.join(", ")), cols.as_slice()));
        let indexes = self.unique_indexes.iter().map(|(name, cols)| (format!("UNIQUE INDEX {name} ({})", cols.join(", ")), cols.as_slice()));
        primary.chain(unique).chain(indexes)
    }
}

/// A table: schema plus segments, or a view: its defining statement.
/// `modified` is the database version that last changed it, which is how
/// concurrent writers detect conflicting changes.
#[derive(Debug, Clone, PartialEq)]
pub struct TableMeta {
    /// Arrow schema; non-nullable fields are NOT NULL columns. For a view, its
    /// columns when it was defined (listings; queries re-plan the view).
    pub schema: SchemaRef,
    /// The segments, in insertion order (none for a view).
    pub segments: Vec<SegmentMeta>,
    /// Version of the manifest that last changed this table.
    pub modified: u64,
    /// For a view, the `CREATE VIEW` statement that defines it.
    pub view: Option<String>,
    /// Keys and defaults.
    pub constraints: Constraints,
}

impl TableMeta {
    /// A new, empty table.
    pub fn new(schema: SchemaRef) -> Self {
        Self::table(schema, Vec::new(), 0)
    }

    /// A table of `segments`, last changed in version `modified`.
    pub fn table(schema: SchemaRef, segments: Vec<SegmentMeta>, modified: u64) -> Self {
        Self { schema, segments, modified, view: None, constraints: Constraints::default() }
    }

    /// This table holding `segments` instead (all else kept).
    pub fn with_segments(&self, segments: Vec<SegmentMeta>) -> Self {
        Self { segments, ..self.clone_without_segments() }
    }

    fn clone_without_segments(&self) -> Self {
        Self {
            schema: self.schema.clone(),
            segments: Vec::new(),
            modified: self.modified,
            view: self.view.clone(),
            constraints: self.constraints.clone(),
        }
    }

    /// A view defined by the `CREATE VIEW` statement `sql`, whose columns are `schema`.
    pub fn view(schema: SchemaRef, sql: String) -> Self {
        Self { schema, segments: Vec::new(), modified: 0, view: Some(sql), constraints: Constraints::default() }
    }

    /// Whether this is a view.
    pub fn is_view(&self) -> bool {
        self.view.is_some()
    }
    /// Total number of rows.
    pub fn num_rows(&self) -> u64 {
        self.segments.iter().map(|s| s.rows).sum()
    }
}

#[derive(Serialize, Deserialize)]
struct TableJson {
    columns: Vec<ColumnMeta>,
    segments: Vec<SegmentMeta>,
    modified: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    view: Option<String>,
    #[serde(default, skip_serializing_if = "Constraints::is_empty")]
    constraints: Constraints,
}

#[derive(Serialize, Deserialize)]
struct ManifestJson {
    format_version: u32,
    version: u64,
    tables: BTreeMap<String, TableJson>,
    /// CRC-32 of the compact JSON of everything else (this field absent), so
    /// that the check does not depend on whitespace or pretty-printing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    crc32: Option<u32>,
}

impl ManifestJson {
    fn checksum(&self) -> u32 {
        debug_assert!(self.crc32.is_none());
        crc32fast::hash(&serde_json::to_vec(self).expect("manifest serializes"))
    }
}

/// One committed version of the database.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Manifest {
    /// The version number (1 for the first commit; 0 is the empty database).
    pub version: u64,
    /// Tables by name.
    pub tables: BTreeMap<String, Arc<TableMeta>>,
}

fn encode_schema(schema: &Schema) -> Vec<ColumnMeta> {
    schema
        .fields()
        .iter()
        .map(|f| ColumnMeta { name: f.name().clone(), data_type: f.data_type().to_string(), nullable: f.is_nullable() })
        .collect()
}

fn decode_schema(columns: &[ColumnMeta]) -> Result<SchemaRef> {
    let fields = columns
        .iter()
        .map(|c| {
            let dt = DataType::from_str(&c.data_type)
                .map_err(|e| Error::corruption(format!("manifest has unknown type {:?} for column '{}': {e}", c.data_type, c.name)))?;
            Ok(Field::new(&c.name, dt, c.nullable))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(Schema::new(fields)))
}

impl Manifest {
    /// Serializes to the JSON stored on disk.
    pub fn to_json(&self) -> Vec<u8> {
        let tables = self
            .tables
            .iter()
            .map(|(name, t)| {
                let json = TableJson {
                    columns: encode_schema(&t.schema),
                    segments: t.segments.clone(),
                    modified: t.modified,
                    view: t.view.clone(),
                    constraints: t.constraints.clone(),
                };
                (name.clone(), json)
            })
            .collect();
        let newer = self.tables.values().any(|t| t.is_view() || !t.constraints.is_empty());
        let format_version = if newer { FORMAT_VERSION } else { PLAIN_FORMAT_VERSION };
        let mut json = ManifestJson { format_version, version: self.version, tables, crc32: None };
        json.crc32 = Some(json.checksum());
        serde_json::to_vec_pretty(&json).expect("manifest serializes")
    }

    /// Parses a manifest read from `origin` (a path, for error messages).
    pub fn from_json(bytes: &[u8], origin: &str) -> Result<Self> {
        let mut json: ManifestJson = serde_json::from_slice(bytes)
            .map_err(|e| Error::corruption(format!("manifest {origin} is damaged: {e}")))?;
        if json.format_version > FORMAT_VERSION {
            return Err(Error::operational(format!(
                "manifest {origin} has format version {}, this swingdb reads up to {FORMAT_VERSION}: upgrade swingdb",
                json.format_version
            )));
        }
        match json.crc32.take() {
            Some(stored) if stored != json.checksum() => {
                return Err(Error::corruption(format!(
                    "manifest {origin} is damaged: its checksum does not match its content (was it edited?)"
                )))
            }
            None if json.format_version >= CHECKSUMMED_SINCE => {
                return Err(Error::corruption(format!("manifest {origin} is damaged: its checksum is missing")))
            }
            _ => {}
        }
        let tables = json
            .tables
            .into_iter()
            .map(|(name, t)| {
                let schema = decode_schema(&t.columns)?;
                let meta = TableMeta { schema, segments: t.segments, modified: t.modified, view: t.view, constraints: t.constraints };
                Ok((name, Arc::new(meta)))
            })
            .collect::<Result<_>>()?;
        Ok(Self { version: json.version, tables })
    }

    /// Every segment file this manifest references.
    pub fn segment_files(&self) -> impl Iterator<Item = &str> {
        self.tables.values().flat_map(|t| t.segments.iter().map(|s| s.file.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::TimeUnit;

    #[test]
    fn views_round_trip_and_raise_the_format_version_only_when_present() {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
        let mut m = Manifest { version: 4, tables: BTreeMap::new() };
        m.tables.insert("t".into(), Arc::new(TableMeta::new(schema.clone())));
        let plain: serde_json::Value = serde_json::from_slice(&m.to_json()).unwrap();
        assert_eq!(plain["format_version"], PLAIN_FORMAT_VERSION);
        m.tables.insert("v".into(), Arc::new(TableMeta::view(schema, "CREATE VIEW v AS SELECT a FROM t".into())));
        let bytes = m.to_json();
        let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(json["format_version"], FORMAT_VERSION);
        let back = Manifest::from_json(&bytes, "test").unwrap();
        assert_eq!(back, m);
        assert!(back.tables["v"].is_view() && !back.tables["t"].is_view());
    }

    #[test]
    fn manifest_round_trips_every_column_type() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int32, false),
            Field::new("b", DataType::Int64, true),
            Field::new("d", DataType::Float64, true),
            Field::new("m", DataType::Decimal128(15, 2), true),
            Field::new("s", DataType::Utf8, true),
            Field::new("v", DataType::Utf8View, true),
            Field::new("t", DataType::Boolean, true),
            Field::new("day", DataType::Date32, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
            Field::new("tz", DataType::Timestamp(TimeUnit::Nanosecond, Some("Europe/Amsterdam".into())), true),
            Field::new("l", DataType::List(Arc::new(Field::new("item", DataType::Int64, true))), true),
        ]));
        let mut m = Manifest { version: 7, ..Default::default() };
        let seg = SegmentMeta {
            file: "a_1.arrow".into(),
            rows: 3,
            bytes: 100,
            crc32: 42,
            layout_crc32: Some(7),
            column_crc32: vec![1, 2],
            stats: vec![ColumnStats { min: Some("1".into()), max: Some("3".into()), nulls: 0 }],
        };
        m.tables.insert("t".into(), Arc::new(TableMeta::table(schema.clone(), vec![seg], 7)));
        let back = Manifest::from_json(&m.to_json(), "test").unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn newer_format_is_refused_with_upgrade_hint() {
        let json = br#"{"format_version": 99, "version": 1, "tables": {}}"#;
        let err = Manifest::from_json(json, "m.json").unwrap_err();
        assert!(err.message().contains("upgrade swingdb"), "{}", err.message());
    }

    #[test]
    fn edited_manifest_fails_its_checksum() {
        let mut m = Manifest { version: 3, ..Default::default() };
        let schema = Arc::new(Schema::new(vec![Field::new("i", DataType::Int64, false)]));
        let seg = SegmentMeta {
            file: "a-1.arrow".into(),
            rows: 3,
            bytes: 100,
            crc32: 42,
            layout_crc32: None,
            column_crc32: vec![],
            stats: vec![ColumnStats { min: Some("1".into()), max: Some("9999".into()), nulls: 0 }],
        };
        m.tables.insert("t".into(), Arc::new(TableMeta::table(schema, vec![seg], 3)));
        let text = String::from_utf8(m.to_json()).unwrap();
        // Whitespace is not content: a reformatted manifest still checks.
        let compact = serde_json::to_vec(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap();
        assert_eq!(Manifest::from_json(&compact, "m.json").unwrap(), m);
        for (from, to) in [("\"9999\"", "\"6999\""), ("\"rows\": 3", "\"rows\": 4"), ("\"crc32\": 42", "\"crc32\": 43")] {
            assert!(text.contains(from), "{from} in {text}");
            let err = Manifest::from_json(text.replacen(from, to, 1).as_bytes(), "m.json").unwrap_err();
            assert_eq!(err.kind(), crate::error::ErrorKind::Corruption, "{from}");
            assert!(err.message().contains("m.json") && err.message().contains("checksum"), "{}", err.message());
        }
        let stripped: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut stripped = stripped.as_object().unwrap().clone();
        stripped.remove("crc32");
        let err = Manifest::from_json(&serde_json::to_vec(&stripped).unwrap(), "m.json").unwrap_err();
        assert!(err.message().contains("checksum is missing"), "{}", err.message());
        // Version 1 manifests predate checksums and are still read.
        stripped.insert("format_version".into(), 1.into());
        assert_eq!(Manifest::from_json(&serde_json::to_vec(&stripped).unwrap(), "m.json").unwrap(), m);
    }

    #[test]
    fn damaged_manifest_is_corruption() {
        let err = Manifest::from_json(b"{\"format_version\": 1, \"vers", "m.json").unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Corruption);
        assert!(err.message().contains("m.json"));
    }
}
