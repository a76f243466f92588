//! Opening a database directory: creating its layout, checking its format
//! marker, and refusing directories another user can change or that a
//! snapshot shares (the interleavings with other processes are in
//! `storage/dir.rs`).

use super::*;

impl DbDir {
    /// Opens the database directory at `root`, creating it when `create` is set
    /// and it does not exist yet. Opening writes nothing to an existing database.
    pub fn open(root: &Path, create: bool, read_only: bool) -> Result<Self> {
        let marker = root.join(MARKER);
        let mut format = LOG_FORMAT_VERSION as u64;
        // Before anything is written into an existing directory (or made).
        if !read_only {
            check_ancestors(root)?;
        }
        if fs::metadata(root).is_ok_and(|m| m.is_dir()) {
            check_not_shared(root, read_only)?;
        }
        match fs::metadata(root) {
            Ok(m) if !m.is_dir() => {
                return Err(Error::operational(format!(
                    "{} is a file, not a swingdb database directory; pick a path that does not exist yet or is a swingdb database",
                    root.display()
                )))
            }
            Ok(_) if marker.exists() => format = check_marker(&marker)?,
            Ok(_) => {
                let empty = fs::read_dir(root).map_err(io_err("listing", root))?.next().is_none();
                if !empty {
                    return Err(Error::operational(format!(
                        "{} is not a swingdb database (no {MARKER} in it); pick an empty or new path",
                        root.display()
                    )));
                }
                if read_only {
                    return Err(Error::operational(format!("{} is empty: nothing to open read-only", root.display())));
                }
                init(root, true)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && create && !read_only => {
                if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
                    fs::create_dir_all(parent).map_err(io_err("creating directory", parent))?;
                }
                create_private_dir(root).map_err(io_err("creating database directory", root))?;
                init(root, true)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::operational(format!("database {} does not exist", root.display())))
            }
            Err(e) => return Err(Error::io(format!("opening database {}", root.display()), e)),
        }
        // gc.lock is made (private) if missing; the handle keeps it open
        // read-only, which is all read locks and shared flocks need, so that an
        // idle handle holds nothing open for writing.
        let gc_lock = root.join(GC_LOCK);
        let pin_file = match open_lock_file(&gc_lock)? {
            Some(_) => Some(File::open(&gc_lock).map_err(io_err("opening", &gc_lock))?),
            None => None,
        };
        let pins = Pins { file: pin_file, counts: BTreeMap::new() };
        Ok(Self {
            root: root.to_path_buf(),
            read_only,
            owner: None,
            lease: Mutex::new(None),
            pins: Mutex::new(pins),
            next_segment: AtomicU64::new(0),
            cache: Mutex::new(None),
            log: Mutex::new(None),
            spare_commit_locks: Arc::default(),
            marker_says_log: AtomicBool::new(format >= LOG_FORMAT_VERSION as u64),
            recover: AtomicBool::new(false),
        })
    }

    /// Lays out a new database in the existing directory `root` (which holds
    /// nothing but files of the caller's own, such as lock files) and opens it.
    pub fn create_in(root: &Path) -> Result<Self> {
        init(root, true)?;
        Self::open(root, false, false)
    }

    /// Lays out and opens a new private database in the existing directory
    /// `root`, owned by this handle: `owner` (a lock the caller took on a
    /// file inside it) is kept until the handle is dropped, and then the
    /// whole directory is removed (also when this fails, before `owner` is
    /// let go). It is never fsynced (see [`DbDir::is_private`]).
    pub fn create_private_in(root: &Path, owner: File) -> Result<Self> {
        match init(root, false).and_then(|_| Self::open(root, false, false)) {
            Ok(mut dir) => {
                dir.owner = Some(owner);
                Ok(dir)
            }
            Err(e) => {
                let _ = fs::remove_dir_all(root);
                Err(e)
            }
        }
    }
}

/// Refuses the database at `root` if another user could write its
/// directory or one of its subdirectories (write bit for others; for its
/// group, unless that is this user's own group), if a subdirectory is a
/// symbolic link, or (unless opened `read_only`) if another user owns one.
pub(super) fn check_not_shared(root: &Path, read_only: bool) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid and getegid have no preconditions.
    let (me, my_group) = unsafe { (libc::geteuid(), libc::getegid()) };
    let dirs = std::iter::once((root.to_path_buf(), fs::metadata(root)))
        .chain(OWN_DIRS.iter().map(|d| (root.join(d), fs::symlink_metadata(root.join(d)))));
    for (dir, meta) in dirs {
        let meta = match meta {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(format!("inspecting {}", dir.display()), e)),
        };
        let mode = meta.mode() & 0o7777;
        let problem = if meta.file_type().is_symlink() {
            Some("is a symbolic link".to_string())
        } else if mode & 0o002 != 0 || (mode & 0o020 != 0 && meta.gid() != my_group) {
            Some(format!("can be written by other users (mode {mode:o})"))
        } else if !read_only && meta.uid() != me {
            Some(format!("belongs to another user (uid {})", meta.uid()))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(Error::operational(format!(
                "database {}: {} {problem}, who could then rename or replace its files; \
                 use a directory of your own that only you can write (chmod go-w, or a new path)",
                root.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Refuses the database at `root` if a directory above it could be renamed
/// by another user: one that belongs to someone other than this user or
/// root, or that others (or a group not this user's) may write without the
/// sticky bit.
pub(super) fn check_ancestors(root: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid and getegid have no preconditions.
    let (me, my_group) = unsafe { (libc::geteuid(), libc::getegid()) };
    let absolute = std::path::absolute(root).map_err(|e| Error::io(format!("resolving {}", root.display()), e))?;
    for dir in absolute.ancestors().skip(1) {
        let meta = match fs::metadata(dir) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue, // made with the database
            Err(e) => return Err(Error::io(format!("inspecting {}", dir.display()), e)),
        };
        let mode = meta.mode() & 0o7777;
        let shared_write = mode & 0o002 != 0 || (mode & 0o020 != 0 && meta.gid() != my_group);
        let problem = if meta.uid() != me && meta.uid() != 0 {
            format!("belongs to another user (uid {})", meta.uid())
        } else if shared_write && mode & 0o1000 == 0 {
            format!("can be written by other users without the sticky bit (mode {mode:o})")
        } else {
            continue;
        };
        return Err(Error::operational(format!(
            "database {}: the directory above it, {}, {problem}, who could move the database away and put theirs in its place; \
             keep databases you write in directories only you (or root) can change (or open it read_only)",
            root.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// Lays out a new database in the directory `root` (empty but for the
/// caller's own files; parts already there are kept), made durable if `durable`.
pub(super) fn init(root: &Path, durable: bool) -> Result<()> {
    for sub in [MANIFESTS, SEGMENTS, LEASES] {
        ensure_private_dir(&root.join(sub))?;
    }
    write_marker(root, LOG_FORMAT_VERSION, durable)?;
    if durable {
        if let Some(parent) = root.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
    }
    Ok(())
}

/// Writes the format marker of the database at `root` (replacing it
/// atomically), made durable if `durable`.
pub(super) fn write_marker(root: &Path, format_version: u32, durable: bool) -> Result<()> {
    let marker = root.join(MARKER);
    let tmp = root.join(format!("{MARKER}.tmp"));
    let text = format!("{{\"format\": \"swingdb\", \"format_version\": {format_version}}}\n");
    let _ = fs::remove_file(&tmp);
    let mut f = create_private_file(&tmp).map_err(io_err("creating", &tmp))?;
    f.write_all(text.as_bytes()).map_err(io_err("writing", &tmp))?;
    if durable {
        f.sync_all().map_err(io_err("syncing", &tmp))?;
    }
    fs::rename(&tmp, &marker).map_err(io_err("creating", &marker))?;
    if durable {
        sync_dir(root)?;
    }
    Ok(())
}

/// Checks the format marker and returns the database's format version.
pub(super) fn check_marker(marker: &Path) -> Result<u64> {
    let text = fs::read_to_string(marker).map_err(io_err("reading", marker))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Error::corruption(format!("{} is damaged: {e}", marker.display())))?;
    if json.get("format").and_then(|v| v.as_str()) != Some("swingdb") {
        return Err(Error::operational(format!("{} is not a swingdb marker file", marker.display())));
    }
    let version = json.get("format_version").and_then(|v| v.as_u64()).unwrap_or(u64::MAX);
    if version > FORMAT_VERSION as u64 {
        return Err(Error::new(
            ErrorKind::Operational,
            format!(
                "database {} has format version {version}, this swingdb reads up to {FORMAT_VERSION}: upgrade swingdb",
                marker.parent().unwrap_or(marker).display()
            ),
        ));
    }
    Ok(version)
}
