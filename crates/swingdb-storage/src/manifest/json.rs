//! A manifest as stored: checksummed JSON, read back with every older
//! format version (see the versions in `storage/manifest.rs`).

use super::*;
use crate::encoding::enums::EnumType;

#[derive(Serialize, Deserialize)]
pub(super) struct TableJson {
    pub(super) columns: Vec<ColumnMeta>,
    pub(super) segments: Vec<SegmentMeta>,
    pub(super) modified: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) view: Option<String>,
    #[serde(default, rename = "macro", skip_serializing_if = "Option::is_none")]
    pub(super) macro_sql: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) sequence: Option<Sequence>,
    #[serde(default, skip_serializing_if = "Constraints::is_empty")]
    pub(super) constraints: Constraints,
    /// [`ColumnIds::next`], in tables whose columns were added or dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) next_column_id: Option<u32>,
    /// An ENUM type's labels.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub(super) enum_labels: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ManifestJson {
    pub(super) format_version: u32,
    pub(super) version: u64,
    pub(super) tables: BTreeMap<String, TableJson>,
    /// CRC-32 of the compact JSON of everything else (this field absent), so
    /// that the check does not depend on whitespace or pretty-printing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) crc32: Option<u32>,
}

pub(super) fn encode_columns(table: &TableMeta) -> Vec<ColumnMeta> {
    let ids = &table.column_ids;
    table
        .schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| ColumnMeta {
            name: f.name().clone(),
            data_type: f.data_type().to_string(),
            nullable: f.is_nullable(),
            id: ids.ids.get(i).copied(),
            fill: ids.fills.get(i).cloned().flatten(),
            enum_type: EnumType::of_field(f).map(|e| EnumJson { name: e.name, labels: e.labels.to_vec() }),
        })
        .collect()
}

pub(super) fn decode_schema(columns: &[ColumnMeta]) -> Result<SchemaRef> {
    let fields = columns
        .iter()
        .map(|c| {
            let dt = DataType::from_str(&c.data_type).map_err(|e| {
                Error::corruption(format!("manifest has unknown type {:?} for column '{}': {e}", c.data_type, c.name))
            })?;
            match &c.enum_type {
                None => Ok(Field::new(&c.name, dt, c.nullable)),
                Some(e) => {
                    let enum_type = EnumType::new(&e.name, e.labels.clone()).map_err(|problem| {
                        Error::corruption(format!("manifest has a damaged ENUM column '{}': {problem}", c.name))
                    })?;
                    if enum_type.data_type() != dt {
                        return Err(Error::corruption(format!(
                            "manifest has ENUM column '{}' of type {dt}, which does not fit its labels",
                            c.name
                        )));
                    }
                    Ok(enum_type.field(&c.name, c.nullable))
                }
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(Schema::new(fields)))
}

/// The column ids of a table as stored: on every column and the next one
/// in the table, or nowhere.
pub(super) fn decode_column_ids(
    name: &str,
    columns: &[ColumnMeta],
    next: Option<u32>,
    origin: &str,
) -> Result<ColumnIds> {
    let ids: Vec<u32> = columns.iter().filter_map(|c| c.id).collect();
    match next {
        None if ids.is_empty() => Ok(ColumnIds::default()),
        Some(next) if ids.len() == columns.len() && ids.iter().all(|&id| id < next) => {
            Ok(ColumnIds { ids, fills: columns.iter().map(|c| c.fill.clone()).collect(), next })
        }
        _ => Err(Error::corruption(format!(
            "manifest {origin} is damaged: the column ids of table '{name}' are incomplete"
        ))),
    }
}
impl ManifestJson {
    pub(super) fn checksum(&self) -> u32 {
        debug_assert!(self.crc32.is_none());
        crc32fast::hash(&serde_json::to_vec(self).expect("manifest serializes"))
    }
}

/// A column as stored in a manifest: the Arrow type is kept as its textual form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct ColumnMeta {
    name: String,
    #[serde(rename = "type")]
    data_type: String,
    nullable: bool,
    /// Its id, in tables whose columns were added or dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<u32>,
    /// Its value in segments written before it was added, when not NULL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fill: Option<String>,
    /// Its ENUM type, for a column of one.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    enum_type: Option<EnumJson>,
}

/// A column's ENUM type as stored: the type's name and its labels (the
/// column keeps them, so that it reads alone, in a snapshot too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct EnumJson {
    name: String,
    labels: Vec<String>,
}

/// A table as stored.
pub(super) fn encode_table(t: &TableMeta) -> TableJson {
    TableJson {
        columns: encode_columns(t),
        segments: t.segments.clone(),
        modified: t.modified,
        view: t.view_sql().map(str::to_string),
        macro_sql: t.macro_sql().map(str::to_string),
        sequence: t.as_sequence().cloned(),
        constraints: t.constraints.clone(),
        next_column_id: t.is_altered().then_some(t.column_ids.next),
        enum_labels: t.enum_labels().map(<[String]>::to_vec),
    }
}

/// Reads back table `name` of manifest `origin`, refusing what cannot be.
pub(super) fn decode_table(name: &str, t: TableJson, origin: &str) -> Result<TableMeta> {
    let schema = decode_schema(&t.columns)?;
    let column_ids = decode_column_ids(name, &t.columns, t.next_column_id, origin)?;
    let definition = match (t.view, t.macro_sql, t.sequence, t.enum_labels) {
        (None, None, None, None) => None,
        (Some(sql), None, None, None) => Some(Definition::View(sql)),
        (None, Some(sql), None, None) => Some(Definition::Macro(sql)),
        (None, None, None, Some(labels)) => match EnumType::new(name, labels) {
            Ok(enum_type) => Some(Definition::Enum(enum_type.labels.to_vec())),
            Err(problem) => {
                return Err(Error::corruption(format!("manifest {origin} is damaged: ENUM type '{name}': {problem}")))
            }
        },
        (None, None, Some(sequence), None) => match sequence.problem() {
            None => Some(Definition::Sequence(sequence)),
            Some(problem) => {
                return Err(Error::corruption(format!("manifest {origin} is damaged: sequence '{name}': {problem}")))
            }
        },
        _ => {
            return Err(Error::corruption(format!(
                "manifest {origin} is damaged: '{name}' is defined as more than one kind of object"
            )))
        }
    };
    check_segments(name, &t.segments, origin)?;
    Ok(TableMeta {
        schema,
        segments: t.segments,
        modified: t.modified,
        definition,
        constraints: t.constraints,
        column_ids,
    })
}

/// Refuses segments of table `name` whose deleted rows do not fit them, or
/// those their origins name (a row's new place is computed from them).
pub(super) fn check_segments<'a>(
    name: &str,
    segments: impl IntoIterator<Item = &'a SegmentMeta>,
    origin: &str,
) -> Result<()> {
    let problem = |s: &SegmentMeta| {
        s.deleted.problem(s.rows).or_else(|| {
            s.origin.iter().find_map(|o| Some(format!("its origin {}: {}", o.file, o.deleted.problem(o.rows)?)))
        })
    };
    match segments.into_iter().find_map(|s| Some((&s.file, problem(s)?))) {
        Some((file, problem)) => {
            Err(Error::corruption(format!("manifest {origin} is damaged: segment {file} of table '{name}': {problem}")))
        }
        None => Ok(()),
    }
}

/// The format version a manifest's content needs: the oldest that can
/// read it (see the versions in `storage/manifest.rs`).
pub(super) fn content_format_version(m: &Manifest) -> u32 {
    let tables = || m.tables.values();
    let enum_column = |t: &Arc<TableMeta>| t.schema.fields().iter().any(|f| EnumType::of_field(f).is_some());
    if tables().any(|t| t.segments.iter().any(|s| s.packed)) {
        PACKED_FORMAT_VERSION
    } else if tables().any(|t| t.segments.iter().any(|s| s.narrowed)) {
        NARROWED_FORMAT_VERSION
    } else if tables().any(|t| t.enum_labels().is_some() || enum_column(t)) {
        ENUM_FORMAT_VERSION
    } else if tables().any(|t| t.segments.iter().any(|s| s.encoded)) {
        ENCODED_FORMAT_VERSION
    } else if tables().any(|t| t.segments.iter().any(|s| !s.deleted.is_empty())) {
        DELETED_FORMAT_VERSION
    } else if tables().any(|t| t.macro_sql().is_some() || t.as_sequence().is_some()) {
        SEQUENCE_FORMAT_VERSION
    } else if tables().any(|t| t.segments.iter().any(|s| s.inline.is_some())) {
        INLINE_FORMAT_VERSION
    } else if tables().any(|t| t.is_altered()) {
        ALTERED_FORMAT_VERSION
    } else if tables().any(|t| t.is_view() || !t.constraints.is_empty()) {
        CONSTRAINED_FORMAT_VERSION
    } else {
        PLAIN_FORMAT_VERSION
    }
}

/// Refuses a format version newer than this build reads.
pub(super) fn check_format_version(format_version: u32, origin: &str) -> Result<()> {
    if format_version > FORMAT_VERSION {
        return Err(Error::operational(format!(
            "manifest {origin} has format version {format_version}, this swingdb reads up to {FORMAT_VERSION}: upgrade swingdb"
        )));
    }
    Ok(())
}

impl Manifest {
    /// Serializes to the JSON stored on disk.
    pub fn to_json(&self) -> Vec<u8> {
        let tables = self.tables.iter().map(|(name, t)| (name.clone(), encode_table(t))).collect();
        let json =
            ManifestJson { format_version: content_format_version(self), version: self.version, tables, crc32: None };
        // Serialized once: the checksum covers these bytes, and the field
        // holding it is the last one, so it is added by closing them later
        // (`from_json` checks it over a serialization of its own: the
        // round-trip tests prove the two agree).
        let mut bytes = serde_json::to_vec(&json).expect("manifest serializes");
        let crc32 = crc32fast::hash(&bytes);
        debug_assert_eq!(bytes.last(), Some(&b'}'));
        bytes.pop();
        bytes.extend_from_slice(format!(",\"crc32\":{crc32}}}").as_bytes());
        bytes
    }

    /// Parses a manifest read from `origin` (a path, for error messages).
    pub fn from_json(bytes: &[u8], origin: &str) -> Result<Self> {
        let mut json: ManifestJson = serde_json::from_slice(bytes)
            .map_err(|e| Error::corruption(format!("manifest {origin} is damaged: {e}")))?;
        check_format_version(json.format_version, origin)?;
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
                let meta = decode_table(&name, t, origin)?;
                Ok((name, Arc::new(meta)))
            })
            .collect::<Result<_>>()?;
        Ok(Self { version: json.version, tables })
    }
}
