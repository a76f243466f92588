use super::*;

#[test]
fn not_a_database_and_newer_format_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.txt"), "hello").unwrap();
    let err = DbDir::open(tmp.path(), true, false).unwrap_err();
    assert!(err.message().contains("not a swingdb database"), "{}", err.message());

    let db = tmp.path().join("new.swingdb");
    drop(DbDir::open(&db, true, false).unwrap());
    std::fs::write(db.join(MARKER), "{\"format\": \"swingdb\", \"format_version\": 9}").unwrap();
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

#[test]
fn gc_keeps_pinned_versions_of_other_handles_and_clears_dead_leases() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let writer = DbDir::open(&root, true, false).unwrap();
    let reader = DbDir::open(&root, true, false).unwrap();
    for v in 1..=3 {
        writer.publish(&Manifest { version: v, ..Default::default() }, &writer.lock_commits().unwrap()).unwrap();
        if v == 1 {
            assert_eq!(reader.pin_latest().unwrap().version, 1);
        }
    }
    let report = writer.collect_garbage(true).unwrap();
    assert_eq!(report.manifests, 1, "only version 2 is unpinned and old");
    assert!(root.join(MANIFESTS).join(manifest_name(1)).exists());
    drop(reader);
    // A crashed writer's orphan segment and lease file (not locked by anyone).
    std::fs::write(root.join(LEASES).join("dead.lease"), "").unwrap();
    std::fs::write(root.join(SEGMENTS).join("dead-0.arrow"), "x").unwrap();
    let report = writer.collect_garbage(true).unwrap();
    assert_eq!(report.manifests, 1);
    assert_eq!(report.segments, 1);
    assert_eq!(report.leases, 1);
    assert!(!root.join(MANIFESTS).join(manifest_name(1)).exists());
}

#[test]
fn gc_removes_nothing_it_could_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("d");
    let db = DbDir::open(&root, true, false).unwrap();
    // A lease that exists but cannot be opened (a link to itself: ELOOP,
    // as EMFILE would be): its writer may be alive, its files stay.
    std::os::unix::fs::symlink("busy.lease", root.join(LEASES).join("busy.lease")).unwrap();
    std::fs::write(root.join(SEGMENTS).join("busy-0.arrow"), "x").unwrap();
    let report = db.collect_garbage(true).unwrap();
    assert_eq!((report.segments, report.leases), (0, 0));
    assert!(root.join(SEGMENTS).join("busy-0.arrow").exists());
    // An old manifest that cannot be read may name any segment: none is removed.
    for v in 1..=2 {
        db.publish(&Manifest { version: v, ..Default::default() }, &db.lock_commits().unwrap()).unwrap();
    }
    std::fs::write(root.join(MANIFESTS).join(manifest_name(1)), "{damaged").unwrap();
    std::fs::write(root.join(SEGMENTS).join("gone-0.arrow"), "x").unwrap();
    let report = db.collect_garbage(true).unwrap();
    assert_eq!(report.kept_for, Some(root.join(MANIFESTS).join(manifest_name(1))));
    assert!(root.join(SEGMENTS).join("gone-0.arrow").exists(), "a segment the damaged manifest may name was removed");
    // Without it, the dead writer's file goes.
    std::fs::remove_file(root.join(MANIFESTS).join(manifest_name(1))).unwrap();
    let report = db.collect_garbage(true).unwrap();
    assert_eq!((report.segments, report.kept_for), (1, None));
}
