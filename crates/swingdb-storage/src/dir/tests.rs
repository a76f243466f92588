use super::*;

#[test]
fn not_a_database_and_newer_format_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.txt"), "hello").unwrap();
    let err = DbDir::open(tmp.path(), true, false).unwrap_err();
    assert!(err.message().contains("not a swingdb database"), "{}", err.message());

    let db = tmp.path().join("new.swingdb");
    drop(DbDir::open(&db, true, false).unwrap());
    let newer = format!("{{\"format\": \"swingdb\", \"format_version\": {}}}", FORMAT_VERSION + 1);
    std::fs::write(db.join(MARKER), newer).unwrap();
    let err = DbDir::open(&db, true, false).unwrap_err();
    assert!(err.message().contains("upgrade swingdb"), "{}", err.message());
}

#[test]
fn a_database_under_a_directory_others_may_rename_in_is_written_only_with_the_sticky_bit() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    let db = shared.join("project").join("d");
    std::fs::create_dir_all(&db).unwrap();
    drop(DbDir::open(&db, true, false).unwrap());
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    for path in [&db, &shared.join("project").join("new")] {
        let err = DbDir::open(path, true, false).unwrap_err();
        assert!(
            err.message().contains("shared, can be written by other users without the sticky bit (mode 777)"),
            "{}",
            err.message()
        );
    }
    assert!(!shared.join("project").join("new").exists(), "nothing was made");
    drop(DbDir::open(&db, false, true).unwrap()); // reading stays allowed
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    drop(DbDir::open(&db, true, false).unwrap());
}

#[test]
fn second_publish_of_a_version_loses() {
    let tmp = tempfile::tempdir().unwrap();
    let a = DbDir::open(&tmp.path().join("d"), true, false).unwrap();
    let b = DbDir::open(&tmp.path().join("d"), true, false).unwrap();
    let m = Manifest { version: 1, ..Default::default() };
    assert!(a.publish(&m, &a.lock_commits().unwrap()).unwrap());
    assert!(!b.publish(&m, &b.lock_commits().unwrap()).unwrap());
    assert_eq!(b.latest_version().unwrap(), 1);
}

/// Version `version` of a database whose one table has the segment files `files`,
/// padded with a view of `pad` bytes of SQL so that its record has about that size.
fn version_with(version: u64, files: &[&str], pad: usize) -> Manifest {
    use super::super::manifest::{SegmentMeta, TableMeta};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let segments = files
        .iter()
        .map(|f| SegmentMeta {
            file: f.to_string(),
            rows: 1,
            bytes: 1,
            crc32: 0,
            layout_crc32: None,
            column_crc32: vec![],
            stats: vec![Default::default()],
            column_ids: None,
            inline: None,
            deleted: Default::default(),
            origin: Vec::new(),
            encoded: false,
            narrowed: false,
            packed: false,
        })
        .collect();
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]));
    let mut tables = BTreeMap::new();
    tables.insert("t".to_string(), Arc::new(TableMeta::table(schema.clone(), segments, version)));
    if pad > 0 {
        // Different in every version, so that a change record is that big too.
        let sql = format!("SELECT '{}' AS v{version}", "x".repeat(pad));
        tables.insert("v".to_string(), Arc::new(TableMeta::view(schema, sql)));
    }
    Manifest { version, tables }
}

fn publish(db: &DbDir, manifest: &Manifest) {
    assert!(db.publish(manifest, &db.lock_commits().unwrap()).unwrap());
}

fn logs(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join(MANIFESTS))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| parse_log_name(n).is_some())
        .collect();
    names.sort();
    names
}

#[test]
fn commits_append_to_one_log_until_it_is_full() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let writer = DbDir::open(&root, true, false).unwrap();
    for v in 1..=40 {
        publish(&writer, &version_with(v, &[], 0));
    }
    assert_eq!(logs(&root), [log_name(1)], "small records all go to the first log");
    // 300 KiB records: the 4 MiB log is full after 13 of them.
    for v in 41..=70 {
        publish(&writer, &version_with(v, &[], 300 << 10));
    }
    let full = logs(&root).len();
    assert!(full >= 3, "{:?}", logs(&root));
    let reader = DbDir::open(&root, false, true).unwrap();
    assert_eq!(reader.latest_version().unwrap(), 70);
    for v in [1, 40, 41, 55, 70] {
        assert_eq!(reader.read_manifest_uncached(v).unwrap(), version_with(v, &[], if v > 40 { 300 << 10 } else { 0 }));
    }
    // Every log but the newest is garbage once nobody pins a version in it.
    let report = writer.collect_garbage(true).unwrap();
    assert_eq!(report.manifests, full - 1);
    assert_eq!(logs(&root).len(), 1);
    assert_eq!(DbDir::open(&root, false, true).unwrap().latest_version().unwrap(), 70);
}

#[test]
fn a_log_holds_changes_after_a_whole_manifest_until_they_outgrow_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let writer = DbDir::open(&root, true, false).unwrap();
    // Each version adds a segment to the one table of a manifest that
    // also holds a 20 KiB view.
    let names: Vec<String> = (0..1000).map(|i| format!("a-{i}.arrow")).collect();
    let view = Arc::new(super::super::manifest::TableMeta::view(
        Arc::new(datafusion::arrow::datatypes::Schema::empty()),
        format!("SELECT '{}'", "x".repeat(20 << 10)),
    ));
    let version = |v: u64| {
        let files: Vec<&str> = names[..v as usize].iter().map(String::as_str).collect();
        let mut m = version_with(v, &files, 0);
        m.tables.insert("v".into(), view.clone());
        m
    };
    for v in 1..=1000 {
        publish(&writer, &version(v));
    }
    let log = Log::open(&root.join(MANIFESTS).join(log_name(1)), 1).unwrap();
    assert_eq!(log.last_version(), 1000, "one log");
    // A whole manifest first; then changes, as long as they add up to
    // less than the whole one before them (or 64 KiB): a reader of any
    // version reads at most about twice a manifest's size.
    let (mut wholes, mut whole, mut changes) = (0, 0, 0);
    for v in 1..=1000 {
        let size = log.manifest(v).unwrap().unwrap().len() + 24;
        if log.whole_at_or_before(v) == Some(v) {
            assert!(v == 1 || changes + size > whole.max(64 << 10), "version {v} could have been a change");
            (wholes, whole, changes) = (wholes + 1, size, 0);
        } else {
            changes += size;
            assert!(changes <= whole.max(64 << 10) && size < 1000, "version {v}: {size} bytes");
        }
    }
    assert!((2..=5).contains(&wholes), "{wholes} whole manifests of 1000");
    // Every version reads back from disk as it was, from a fresh handle
    // and from one whose last version read is older.
    let reader = DbDir::open(&root, false, true).unwrap();
    assert_eq!(reader.latest_version().unwrap(), 1000);
    for v in [1, 2, 37, 500, 999, 1000] {
        assert_eq!(reader.read_manifest_uncached(v).unwrap(), version(v));
    }
    assert_eq!(*reader.read_manifest(950).unwrap(), version(950));
    assert_eq!(*reader.read_manifest(1000).unwrap(), version(1000), "50 changes applied to version 950");
    // The collector reads pinned versions the same way, once it has a file
    // to remove (an orphan of a writer that is gone).
    assert_eq!(reader.pin_latest().unwrap().version, 1000);
    fs::write(root.join(SEGMENTS).join("gone-0.arrow"), "x").unwrap();
    let report = writer.collect_garbage(true).unwrap();
    assert_eq!((report.kept_for, report.segments), (None, 1));
}

#[test]
fn a_reader_sees_versions_of_a_log_begun_after_it_last_read() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let writer = DbDir::open(&root, true, false).unwrap();
    publish(&writer, &version_with(1, &[], 0));
    let reader = DbDir::open(&root, false, true).unwrap();
    assert_eq!(reader.latest_version().unwrap(), 1, "the reader holds log 1 as last read");
    // 1 MiB records: log 1 is full after 3 more, version 5 begins a new log.
    for v in 2..=5 {
        publish(&writer, &version_with(v, &[], 1 << 20));
        assert_eq!(reader.latest_version().unwrap(), v);
    }
    assert_eq!(logs(&root), [log_name(1), log_name(5)]);
    let sealed = Log::open(&root.join(MANIFESTS).join(log_name(1)), 1).unwrap();
    assert_eq!((sealed.last_version(), sealed.tail()), (4, Tail::Torn), "log 1 ends in its seal");
    assert_eq!(reader.pin_latest().unwrap().version, 5);
}

#[test]
fn gc_keeps_pinned_versions_of_other_handles_and_clears_dead_leases() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let writer = DbDir::open(&root, true, false).unwrap();
    let reader = DbDir::open(&root, true, false).unwrap();
    for name in ["a-0.arrow", "b-0.arrow", "c-0.arrow"] {
        fs::write(root.join(SEGMENTS).join(name), "x").unwrap();
    }
    // Segment a in version 1 (pinned), b in version 2 (not), c in 3 (newest),
    // with a new log in between so that an older log holds the pin.
    publish(&writer, &version_with(1, &["a-0.arrow"], 0));
    assert_eq!(reader.pin_latest().unwrap().version, 1);
    publish(&writer, &version_with(2, &["b-0.arrow"], 3 << 20));
    publish(&writer, &version_with(3, &["c-0.arrow"], 3 << 20));
    assert_eq!(logs(&root), [log_name(1), log_name(3)]);
    let report = writer.collect_garbage(true).unwrap();
    assert_eq!((report.manifests, report.segments), (0, 1), "only b is unpinned and old");
    assert!(root.join(SEGMENTS).join("a-0.arrow").exists());
    assert!(!root.join(SEGMENTS).join("b-0.arrow").exists());
    assert_eq!(reader.read_manifest_uncached(1).unwrap(), version_with(1, &["a-0.arrow"], 0));
    drop(reader);
    // A crashed writer's orphan segment and lease file (not locked by anyone).
    fs::write(root.join(LEASES).join("dead.lease"), "").unwrap();
    fs::write(root.join(SEGMENTS).join("dead-0.arrow"), "x").unwrap();
    let report = writer.collect_garbage(true).unwrap();
    assert_eq!((report.manifests, report.segments, report.leases), (1, 2, 1));
    assert_eq!(logs(&root), [log_name(3)]);
    assert!(root.join(SEGMENTS).join("c-0.arrow").exists());
}

/// A new database with versions 1 and 2 (in its first log), and its handle.
fn two_versions() -> (tempfile::TempDir, PathBuf, DbDir) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let db = DbDir::open(&root, true, false).unwrap();
    publish(&db, &version_with(1, &[], 0));
    publish(&db, &version_with(2, &[], 0));
    (tmp, root, db)
}

#[test]
fn a_torn_record_is_the_end_and_the_next_commit_begins_a_new_log() {
    let (_tmp, root, db) = two_versions();
    // Half of the record of version 3, as a process killed in its write leaves it.
    let path = root.join(MANIFESTS).join(log_name(1));
    let log = Log::open(&path, 1).unwrap();
    let record = Record::new(3, log.last_crc(), &[], &version_with(3, &[], 0).to_json()).unwrap();
    let half = &record.bytes[..record.bytes.len() / 2];
    std::os::unix::fs::FileExt::write_all_at(&File::options().write(true).open(&path).unwrap(), half, log.end).unwrap();
    let other = DbDir::open(&root, false, false).unwrap();
    assert_eq!(other.latest_version().unwrap(), 2);
    assert_eq!(other.pin_latest().unwrap().version, 2);
    publish(&other, &version_with(3, &["x-0.arrow"], 0));
    assert_eq!(logs(&root), [log_name(1), log_name(3)], "never written over the remains");
    for v in 1..=3 {
        let files: &[&str] = if v == 3 { &["x-0.arrow"] } else { &[] };
        assert_eq!(db.read_manifest_uncached(v).unwrap(), version_with(v, files, 0));
    }
}

#[test]
fn a_damaged_record_is_corruption_not_the_end() {
    let (_tmp, root, _db) = two_versions();
    let path = root.join(MANIFESTS).join(log_name(1));
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes.windows(4).rposition(|w| w == b"\"t\":").unwrap();
    bytes[at + 1] = b'u';
    fs::write(&path, bytes).unwrap();
    let other = DbDir::open(&root, false, false).unwrap();
    for err in [
        other.latest_version().unwrap_err(),
        other.pin_latest().unwrap_err(),
        other.lock_commits().and_then(|l| other.latest_version_locked(&l)).unwrap_err(),
    ] {
        assert_eq!(err.kind(), ErrorKind::Corruption);
        assert!(
            err.message().contains("damaged at byte") && err.message().contains("versions up to 1 are intact"),
            "{}",
            err.message()
        );
    }
    assert!(other.publish(&version_with(3, &[], 0), &other.lock_commits().unwrap()).is_err());
    assert_eq!(logs(&root), [log_name(1)], "nothing was written after the damage");
}

/// Issue 71: one flipped bit in the length of record 10 of 40 made it look
/// unfinished, the 30 versions after it were silently gone, and the next
/// commit began a new log over them. Every bit of every header field of
/// every record, the last too, and a zeroed byte in each payload: each is
/// reported as damage (or, where the flip leaves the record valid, changes
/// nothing), never taken for the end.
#[test]
fn a_damaged_record_followed_by_valid_ones_is_never_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let db = DbDir::open(&root, true, false).unwrap();
    let versions = 12;
    for v in 1..=versions {
        publish(&db, &version_with(v, &[], 0));
    }
    let path = root.join(MANIFESTS).join(log_name(1));
    let intact = fs::read(&path).unwrap();
    // Each record: a 24-byte header whose first field is the payload's length.
    let (header, mut offsets, mut at) = (24, Vec::new(), 16);
    for _ in 0..versions {
        offsets.push(at);
        at += header + u32::from_le_bytes(intact[at..at + 4].try_into().unwrap()) as usize;
    }
    let mut trials = 0;
    for (i, &offset) in offsets.iter().enumerate() {
        let mut damages: Vec<Vec<u8>> = (0..header * 8)
            .map(|bit| {
                let mut bytes = intact.clone();
                bytes[offset + bit / 8] ^= 1 << (bit % 8);
                bytes
            })
            .collect();
        let mut zeroed = intact.clone();
        zeroed[offset + header + 3] = 0;
        damages.push(zeroed);
        for bytes in damages {
            fs::write(&path, &bytes).unwrap();
            let reader = DbDir::open(&root, false, false).unwrap();
            match reader.latest_version() {
                Ok(v) => assert_eq!(v, versions, "record {} damaged: version {v} taken for the newest", i + 1),
                Err(e) => assert_eq!(e.kind(), ErrorKind::Corruption, "{}", e.message()),
            }
            trials += 1;
        }
    }
    fs::write(&path, &intact).unwrap();
    assert_eq!(DbDir::open(&root, false, false).unwrap().latest_version().unwrap(), versions);
    assert!(trials > 2000);
}

#[test]
fn a_database_of_manifest_files_goes_on_in_a_log() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    drop(DbDir::open(&root, true, false).unwrap());
    // As a build before the commit log left it.
    open::write_marker(&root, 6, false).unwrap();
    for v in 1..=2 {
        fs::write(root.join(MANIFESTS).join(manifest_name(v)), version_with(v, &[], 0).to_json()).unwrap();
    }
    let db = DbDir::open(&root, false, false).unwrap();
    assert_eq!(db.latest_version().unwrap(), 2);
    publish(&db, &version_with(3, &[], 0));
    assert_eq!(logs(&root), [log_name(3)]);
    assert_eq!(
        open::check_marker(&root.join(MARKER)).unwrap(),
        LOG_FORMAT_VERSION as u64,
        "older builds now refuse it"
    );
    assert_eq!(db.read_manifest_uncached(2).unwrap(), version_with(2, &[], 0));
    let report = db.collect_garbage(true).unwrap();
    assert_eq!(report.manifests, 2);
    assert_eq!(DbDir::open(&root, false, true).unwrap().latest_version().unwrap(), 3);
}

#[test]
fn gc_removes_nothing_it_could_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let db = DbDir::open(&root, true, false).unwrap();
    // A lease that exists but cannot be opened (a link to itself: ELOOP,
    // as EMFILE would be): its writer may be alive, its files stay.
    std::os::unix::fs::symlink("busy.lease", root.join(LEASES).join("busy.lease")).unwrap();
    fs::write(root.join(SEGMENTS).join("busy-0.arrow"), "x").unwrap();
    let report = db.collect_garbage(true).unwrap();
    assert_eq!((report.segments, report.leases), (0, 0));
    assert!(root.join(SEGMENTS).join("busy-0.arrow").exists());
    // An old manifest file (of a database made before the commit log) that
    // cannot be read may name any segment: none is removed.
    fs::write(root.join(MANIFESTS).join(manifest_name(1)), "{damaged").unwrap();
    fs::write(root.join(MANIFESTS).join(manifest_name(2)), version_with(2, &[], 0).to_json()).unwrap();
    fs::write(root.join(SEGMENTS).join("gone-0.arrow"), "x").unwrap();
    let report = db.collect_garbage(true).unwrap();
    assert_eq!(report.kept_for, Some(root.join(MANIFESTS).join(manifest_name(1))));
    assert!(root.join(SEGMENTS).join("gone-0.arrow").exists(), "a segment the damaged manifest may name was removed");
    // Without it, the dead writer's file goes.
    fs::remove_file(root.join(MANIFESTS).join(manifest_name(1))).unwrap();
    let report = db.collect_garbage(true).unwrap();
    assert_eq!((report.segments, report.kept_for), (1, None));
}
