use super::json::ManifestJson;
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
    assert_eq!(json["format_version"], CONSTRAINED_FORMAT_VERSION);
    let back = Manifest::from_json(&bytes, "test").unwrap();
    assert_eq!(back, m);
    assert!(back.tables["v"].is_view() && !back.tables["t"].is_view());
}

#[test]
fn sequences_and_macros_round_trip_as_format_6_and_impossible_sequences_are_refused() {
    let mut m = Manifest { version: 2, tables: BTreeMap::new() };
    let mut sequence = Sequence::new("s", Some(2), None, None, None, true).unwrap();
    sequence.file = "lease-0.seq".into();
    m.tables.insert("s".into(), Arc::new(TableMeta::sequence(sequence)));
    m.tables.insert("m".into(), Arc::new(TableMeta::macro_defined_by("CREATE MACRO \"m\"(a) AS a + 1".into())));
    let bytes = m.to_json();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format_version"], SEQUENCE_FORMAT_VERSION);
    let back = Manifest::from_json(&bytes, "test").unwrap();
    assert_eq!(back, m);
    assert_eq!(back.segment_files().collect::<Vec<_>>(), vec!["lease-0.seq"], "the counter is kept by the collector");
    // Edited to count by 0 and checksummed again, as someone writing
    // the file on purpose would: refused, not handed out for ever.
    let mut json: ManifestJson = serde_json::from_slice(&bytes).unwrap();
    json.tables.get_mut("s").unwrap().sequence.as_mut().unwrap().increment = 0;
    json.crc32 = None;
    json.crc32 = Some(json.checksum());
    let e = Manifest::from_json(&serde_json::to_vec(&json).unwrap(), "test").unwrap_err();
    assert!(e.to_string().contains("sequence 's': INCREMENT must not be 0"), "{e}");
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
        stats: vec![ColumnStats { min: Some("1".into()), max: Some("3".into()), nulls: 0, distinct: None }],
        column_ids: None,
        inline: None,
        deleted: Default::default(),
        origin: Vec::new(),
        encoded: false,
        narrowed: false,
        packed: false,
    };
    m.tables.insert("t".into(), Arc::new(TableMeta::table(schema.clone(), vec![seg], 7)));
    let back = Manifest::from_json(&m.to_json(), "test").unwrap();
    assert_eq!(back, m);
}

fn segment(file: &str, columns: usize) -> SegmentMeta {
    SegmentMeta {
        file: file.into(),
        rows: 2,
        bytes: 100,
        crc32: 1,
        layout_crc32: None,
        column_crc32: vec![],
        stats: vec![ColumnStats { min: Some("1".into()), max: Some("2".into()), nulls: 0, distinct: None }; columns],
        column_ids: None,
        inline: None,
        deleted: Default::default(),
        origin: Vec::new(),
        encoded: false,
        narrowed: false,
        packed: false,
    }
}

#[test]
fn added_and_dropped_columns_are_found_by_id_in_older_segments() {
    let schema =
        Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true), Field::new("b", DataType::Utf8, true)]));
    let table = TableMeta::table(schema, vec![segment("old.arrow", 2)], 1);
    assert!(!table.is_altered());
    let added = table.add_column(Field::new("c", DataType::Int64, true), Some("7".into()));
    let dropped = added.drop_column(0);
    // Re-adding a dropped name is a new column with a new id.
    let readded = dropped.add_column(Field::new("a", DataType::Int64, true), None);
    let mut segments = readded.segments.clone();
    segments.push(segment("new.arrow", 3));
    let table = readded.with_segments(segments);
    assert_eq!(table.segments[0].column_ids, Some(vec![0, 1]));
    assert_eq!(table.segments[1].column_ids, Some(vec![1, 2, 3]));
    // Columns b, c, a: in the old file at 1, missing, missing (a there is the dropped one).
    assert_eq!(table.segment_columns(&table.segments[0]), [Some(1), None, None]);
    assert_eq!(table.segment_columns(&table.segments[1]), [Some(0), Some(1), Some(2)]);
    let filled = table.column_stats(&table.segments[0], 1).unwrap();
    assert_eq!((filled.min.as_deref(), filled.nulls), (Some("7"), 0));
    assert_eq!(table.column_stats(&table.segments[0], 2).unwrap().nulls, 2);
    // The fill is one distinct value; a column added without one has none.
    assert_eq!(table.fill_sketch(1).map(|d| d.estimate()), Some(1));
    assert!(table.fill_sketch(2).is_none());
    // Stored and read back as they are; older builds are told to upgrade.
    let mut m = Manifest { version: 5, ..Default::default() };
    m.tables.insert("t".into(), Arc::new(table));
    let bytes = m.to_json();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format_version"], ALTERED_FORMAT_VERSION);
    assert_eq!(Manifest::from_json(&bytes, "test").unwrap(), m);
    // A column without its id is damage, even under a valid checksum.
    let mut partial = json.clone();
    partial["tables"]["t"]["columns"][0].as_object_mut().unwrap().remove("id");
    partial.as_object_mut().unwrap().remove("crc32");
    let mut partial: ManifestJson = serde_json::from_value(partial).unwrap();
    partial.crc32 = Some(partial.checksum());
    let err = Manifest::from_json(&serde_json::to_vec(&partial).unwrap(), "m.json").unwrap_err();
    assert!(err.message().contains("column ids of table 't' are incomplete"), "{}", err.message());
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
        stats: vec![ColumnStats { min: Some("1".into()), max: Some("9999".into()), nulls: 0, distinct: None }],
        column_ids: None,
        inline: None,
        deleted: Default::default(),
        origin: Vec::new(),
        encoded: false,
        narrowed: false,
        packed: false,
    };
    m.tables.insert("t".into(), Arc::new(TableMeta::table(schema, vec![seg], 3)));
    let text = String::from_utf8(m.to_json()).unwrap();
    // Whitespace is not content: a reformatted manifest still checks.
    let pretty = serde_json::to_vec_pretty(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap();
    assert_eq!(Manifest::from_json(&pretty, "m.json").unwrap(), m);
    for (from, to) in [("\"9999\"", "\"6999\""), ("\"rows\":3", "\"rows\":4"), ("\"crc32\":42", "\"crc32\":43")] {
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

#[test]
fn deleted_rows_round_trip_as_format_8_and_marks_that_do_not_fit_are_corruption() {
    use crate::manifest::deleted::DeletedRows;
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
    let with = |deleted: DeletedRows, origin: Vec<Origin>| {
        let seg = SegmentMeta { deleted, origin, ..segment("s", 1) };
        let mut m = Manifest { version: 4, tables: BTreeMap::new() };
        m.tables.insert("t".into(), Arc::new(TableMeta::table(schema.clone(), vec![seg], 4)));
        m
    };
    let source =
        |rows, deleted: &[u64]| Origin { file: "o".into(), rows, deleted: DeletedRows::of(deleted.iter().copied()) };
    let m = with(DeletedRows::of([1]), vec![source(3, &[2])]);
    let bytes = m.to_json();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format_version"], DELETED_FORMAT_VERSION);
    assert_eq!(Manifest::from_json(&bytes, "test").unwrap(), m);
    // Checksummed, yet impossible: a mark past the segment's rows, or in an origin past its source's.
    let err = Manifest::from_json(&with(DeletedRows::of([2]), vec![]).to_json(), "test").unwrap_err();
    assert!(err.message().contains("segment s of table 't'") && err.message().contains("row 2"), "{}", err.message());
    let err = Manifest::from_json(&with(DeletedRows::default(), vec![source(3, &[3])]).to_json(), "test").unwrap_err();
    assert!(err.message().contains("its origin o"), "{}", err.message());
}

#[test]
fn a_change_record_makes_the_version_from_the_one_before() {
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]));
    let table = |segments: Vec<SegmentMeta>, modified| Arc::new(TableMeta::table(schema.clone(), segments, modified));
    let mut before = Manifest { version: 4, ..Default::default() };
    let old: Vec<SegmentMeta> = (0..6).map(|i| segment(&format!("s{i}.arrow"), 1)).collect();
    before.tables.insert("t".into(), table(old.clone(), 3));
    before.tables.insert("gone".into(), table(vec![segment("g.arrow", 1)], 2));
    let kept = table(vec![segment("k.arrow", 1)], 1);
    before.tables.insert("kept".into(), kept.clone());
    // Version 5: t loses s2, has a row of s4 deleted and gains s6 after s1;
    // gone is dropped, kept untouched, new created.
    let mut changed = old[4].clone();
    changed.deleted = DeletedRows::of([1]);
    let segments =
        vec![old[0].clone(), old[1].clone(), segment("s6.arrow", 1), old[3].clone(), changed, old[5].clone()];
    let mut after = Manifest { version: 5, ..Default::default() };
    after.tables.insert("t".into(), table(segments, 5));
    after.tables.insert("kept".into(), kept);
    after.tables.insert("new".into(), table(vec![], 5));
    let delta = after.delta_json(&before);
    let text = std::str::from_utf8(&delta[1..]).unwrap();
    assert_eq!(delta[0], DELTA_MARK);
    assert!(text.contains("\"pieces\":[[0,2],{\"file\":\"s6.arrow\""), "{text}");
    assert!(text.contains("[3,4],[4,[1,2]],[5,6]]"), "only the added mark: {text}");
    assert!(text.starts_with("{\"format_version\":13,"), "which older builds refuse: {text}");
    assert!(!text.contains("k.arrow") && text.contains("\"removed\":[\"gone\"]"), "{text}");
    assert_eq!(before.apply_delta(&delta, "test").unwrap(), after);
    // Only onto the version before.
    let mut other = before.clone();
    other.version = 3;
    let e = other.apply_delta(&delta, "test").unwrap_err();
    assert!(e.to_string().contains("it is version 5, not the one after 3"), "{e}");
}

#[test]
fn a_change_record_that_does_not_fit_its_version_is_damage() {
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]));
    let mut before = Manifest { version: 1, ..Default::default() };
    before.tables.insert("t".into(), Arc::new(TableMeta::table(schema, vec![segment("a.arrow", 1)], 1)));
    for (delta, says) in [
        (
            r#"D{"format_version":2,"version":2,"tables":{"t":{"segments":{"modified":2,"pieces":[[0,2]]}}}}"#,
            "keeps segments 0..2 of 1",
        ),
        (
            r#"D{"format_version":2,"version":2,"tables":{"u":{"segments":{"modified":2,"pieces":[]}}}}"#,
            "table 'u', which version 1 lacks",
        ),
        (r#"D{"format_version":2,"version":2,"removed":["u"]}"#, "it removes 'u'"),
        (
            r#"D{"format_version":2,"version":2,"tables":{"t":{"segments":{"modified":2,"pieces":[[0]]}}}}"#,
            "invalid length",
        ),
        (r#"{"format_version":2,"version":2}"#, "not a change record"),
        (r#"D{"format_version":99,"version":2}"#, "upgrade swingdb"),
        (
            r#"D{"format_version":13,"version":2,"tables":{"t":{"segments":{"modified":2,"pieces":[[1,[0,1]]]}}}}"#,
            "marks segment 1 of 1",
        ),
        (
            r#"D{"format_version":13,"version":2,"tables":{"t":{"segments":{"modified":2,"pieces":[[0,[0,5]]]}}}}"#,
            "row 4",
        ),
    ] {
        let e = before.apply_delta(delta.as_bytes(), "test").unwrap_err();
        assert!(e.to_string().contains(says), "{delta}: {e}");
    }
    // Deleted rows past a new segment's end, as with whole manifests.
    let bad = r#"D{"format_version":8,"version":2,"tables":{"t":{"segments":{"modified":2,"pieces":[{"file":"b.arrow","rows":2,"bytes":1,"crc32":0,"stats":[],"deleted":[1,5]}]}}}}"#;
    let e = before.apply_delta(bad.as_bytes(), "test").unwrap_err();
    assert_eq!(e.kind(), crate::error::ErrorKind::Corruption);
    assert!(e.to_string().contains("segment b.arrow of table 't'"), "{e}");
}

#[test]
fn encoded_segments_round_trip_as_format_11_which_older_builds_refuse() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int32, true)]));
    let with = |encoded: bool| {
        let mut m = Manifest { version: 4, tables: BTreeMap::new() };
        let seg = SegmentMeta { encoded, ..segment("s", 1) };
        m.tables.insert("t".into(), Arc::new(TableMeta::table(schema.clone(), vec![seg], 4)));
        m
    };
    let json: serde_json::Value = serde_json::from_slice(&with(false).to_json()).unwrap();
    assert_eq!(json["format_version"], PLAIN_FORMAT_VERSION, "plain segments keep the plain format");
    let bytes = with(true).to_json();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format_version"], ENCODED_FORMAT_VERSION);
    assert_eq!(json["tables"]["t"]["segments"][0]["encoded"], true);
    assert_eq!(Manifest::from_json(&bytes, "test").unwrap(), with(true));
}

#[test]
fn narrowed_segments_round_trip_as_format_15_and_others_keep_theirs() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let mut m = Manifest { version: 4, tables: BTreeMap::new() };
    let seg = SegmentMeta { encoded: true, narrowed: true, ..segment("s", 1) };
    m.tables.insert("t".into(), Arc::new(TableMeta::table(schema, vec![seg], 4)));
    let bytes = m.to_json();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format_version"], NARROWED_FORMAT_VERSION);
    assert_eq!(json["tables"]["t"]["segments"][0]["narrowed"], true);
    assert_eq!(Manifest::from_json(&bytes, "test").unwrap(), m);
    let plain = SegmentMeta { encoded: true, ..segment("s", 1) };
    m.tables.insert("t".into(), Arc::new(TableMeta::table(m.tables["t"].schema.clone(), vec![plain], 4)));
    let json: serde_json::Value = serde_json::from_slice(&m.to_json()).unwrap();
    assert_eq!(json["format_version"], ENCODED_FORMAT_VERSION, "other encodings keep their version");
}

#[test]
fn packed_segments_round_trip_as_format_16() {
    let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
    let mut m = Manifest { version: 4, tables: BTreeMap::new() };
    let seg = SegmentMeta { encoded: true, narrowed: true, packed: true, ..segment("s", 1) };
    m.tables.insert("t".into(), Arc::new(TableMeta::table(schema, vec![seg], 4)));
    let bytes = m.to_json();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format_version"], PACKED_FORMAT_VERSION);
    assert_eq!(PACKED_FORMAT_VERSION, FORMAT_VERSION, "this build writes and reads it");
    assert_eq!(json["tables"]["t"]["segments"][0]["packed"], true);
    assert_eq!(Manifest::from_json(&bytes, "test").unwrap(), m);
}

#[test]
fn enum_types_and_their_columns_round_trip_as_format_14_and_damaged_labels_are_refused() {
    let mood = crate::encoding::enums::EnumType::new("mood", vec!["sad".into(), "ok".into(), "happy".into()]).unwrap();
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, true), mood.field("m", false)]));
    let mut m = Manifest { version: 3, tables: BTreeMap::new() };
    m.tables.insert("t".into(), Arc::new(TableMeta::new(schema)));
    m.tables.insert("mood".into(), Arc::new(TableMeta::enum_type(mood.labels.to_vec())));
    let bytes = m.to_json();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["format_version"], ENUM_FORMAT_VERSION);
    let back = Manifest::from_json(&bytes, "test").unwrap();
    assert_eq!(back, m);
    assert_eq!(crate::encoding::enums::EnumType::of_field(back.tables["t"].schema.field(1)), Some(mood.clone()));
    assert!(back.tables["t"].uses_enum("mood") && back.tables["mood"].kind() == "type");
    // A label repeated in the file (and checksummed again) is refused.
    let mut json: ManifestJson = serde_json::from_slice(&bytes).unwrap();
    json.tables.get_mut("mood").unwrap().enum_labels = Some(vec!["a".into(), "a".into()]);
    json.crc32 = None;
    json.crc32 = Some(json.checksum());
    let e = Manifest::from_json(&serde_json::to_vec(&json).unwrap(), "test").unwrap_err();
    assert!(e.to_string().contains("ENUM type 'mood'"), "{e}");
}
