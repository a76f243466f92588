//! Garbage collection: deleting the manifests and logs no one pins, the segment
//! files no kept manifest names and the leases of handles that are gone
//! (the interleavings with other processes are in `storage/dir.rs`).

use super::*;

/// The lease id a segment or temporary file belongs to (the part before the first '-').
pub(super) fn owner_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("tmp-").unwrap_or(name);
    rest.split_once('-').map(|(id, _)| id)
}

/// The segment a key run file (`<segment>.<fingerprint>.keys`) belongs to;
/// `None` for a temporary file.
pub(super) fn key_run_segment(name: &str) -> Option<&str> {
    name.strip_suffix(".keys")?.rsplit_once('.').map(|(segment, _)| segment)
}

/// What `DbDir::collect_garbage` removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GcReport {
    /// Manifest files and commit logs deleted.
    pub manifests: usize,
    /// Segment files deleted.
    pub segments: usize,
    /// Dead leases (of crashed or exited processes) cleared.
    pub leases: usize,
    /// Whether the collection was skipped because another process held a lock.
    pub skipped: bool,
    /// A manifest that could not be read, for which no segment was removed.
    pub kept_for: Option<PathBuf>,
}

impl DbDir {
    /// Is the lease `id` held by a live handle (in any process)? A dead lease's
    /// file is removed on the way (only while holding its lock, so a lease that
    /// is being created is never removed after its owner locked it).
    pub(super) fn lease_alive(&self, id: &str, own: Option<&str>) -> bool {
        if Some(id) == own {
            return true;
        }
        let path = self.root.join(LEASES).join(format!("{id}.lease"));
        // Only a lease file that is not there proves its writer gone (a
        // writer locks its lease before it makes any file named after it); a
        // file that could not be opened (no free descriptor) proves nothing.
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) => return e.kind() != io::ErrorKind::NotFound,
        };
        match try_flock(&file, libc::LOCK_EX) {
            Ok(true) => {
                if still_named(&file, &path) {
                    let _ = fs::remove_file(&path);
                }
                false
            }
            _ => true,
        }
    }

    /// Deletes manifests no live handle pins (keeping the newest), the segments
    /// only they referenced, and files left by crashed writers. Never removes
    /// anything a live reader in any process still pins. With `wait`, waits for
    /// the locks; without, skips the collection if another process holds them.
    ///
    /// Only what is proven dead is removed, nothing is concluded from a read
    /// that failed:
    /// - a lease, when its lock was taken here (its writer is gone);
    /// - a file named after a lease, when that lease is dead: its lock was
    ///   free, or its file is absent (`ENOENT`; any other failure to open it
    ///   counts as alive);
    /// - a manifest file, when it is readable, older than the newest and
    ///   pinned by nobody; a damaged one is kept for `verify()` to report;
    /// - a commit log, when it is not the newest and neither a version in it
    ///   nor anything older is kept;
    /// - a segment, when a version dropped it (a collected manifest file
    ///   named it, or a log record lists it) and no kept version has it,
    ///   or its writer's lease is dead. While any manifest is unreadable no
    ///   segment is removed (it may name any of them: [`GcReport::kept_for`]);
    /// - a key run (a cache), when its segment is gone.
    pub fn collect_garbage(&self, wait: bool) -> Result<GcReport> {
        if self.read_only {
            return Ok(GcReport::default());
        }
        let skipped = GcReport { skipped: true, ..Default::default() };
        let commit_path = self.root.join(COMMIT_LOCK);
        let Some(commit_file) = self.commit_lock_file()? else { return Ok(skipped) };
        let gc_path = self.root.join(GC_LOCK);
        let Some(gc_file) = open_lock_file(&gc_path)? else { return Ok(skipped) };
        let commit_held = if wait {
            flock_exclusive_within(&commit_file, COMMIT_LOCK_TIMEOUT)
        } else {
            try_flock(&commit_file, libc::LOCK_EX)
        };
        if !commit_held.map_err(io_err("locking", &commit_path))? {
            return if wait {
                Err(Error::operational(format!(
                    "{} stayed locked for {} s; garbage was not collected",
                    commit_path.display(),
                    COMMIT_LOCK_TIMEOUT.as_secs()
                )))
            } else {
                Ok(skipped)
            };
        }
        // Unlocked (and its descriptor kept for reuse) when this call returns.
        let _commit_lock = self.held_commit_lock(commit_file);
        let gc_held =
            if wait { flock(&gc_file, libc::LOCK_EX).map(|_| true) } else { try_flock(&gc_file, libc::LOCK_EX) };
        if !gc_held.map_err(io_err("locking", &gc_path))? {
            return Ok(skipped);
        }
        failpoint::hit("gc.after_lock")?;
        // gc.lock is released when its file closes at the end of this call.
        self.collect_locked(&gc_file)
    }

    pub(super) fn collect_locked(&self, gc_file: &File) -> Result<GcReport> {
        let own_lease = self.lease.lock().as_ref().map(|l| l.id.clone());
        let own = own_lease.as_deref();
        let mut report = GcReport::default();

        // Leases: clear dead ones.
        let leases_dir = self.root.join(LEASES);
        let mut alive: HashMap<String, bool> = HashMap::new();
        for entry in fs::read_dir(&leases_dir).map_err(io_err("listing", &leases_dir))? {
            let name = entry.map_err(io_err("listing", &leases_dir))?.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".lease") else { continue };
            let live = self.lease_alive(id, own);
            if !live {
                report.leases += 1;
            }
            alive.insert(id.to_string(), live);
        }

        // Manifests: keep the newest version and every pinned one. Files
        // any version dropped are garbage unless a kept version has them.
        let manifests_dir = self.root.join(MANIFESTS);
        let latest = self.newest(Suspect::Damage)?;
        let mut keep_files: HashSet<String> = self.read_manifest(latest)?.segment_files().map(str::to_string).collect();
        let mut garbage_files = HashSet::new();
        let mut unreadable = None;
        let pinned = |version: u64| {
            byte_locked_elsewhere(gc_file, version).map_err(io_err("checking pins in", &self.root.join(GC_LOCK)))
        };
        // Manifest files (of databases made before the commit log), and
        // whether one older than the logs stays.
        let mut older_kept = false;
        for entry in fs::read_dir(&manifests_dir).map_err(io_err("listing", &manifests_dir))? {
            let name = entry.map_err(io_err("listing", &manifests_dir))?.file_name().to_string_lossy().into_owned();
            let path = manifests_dir.join(&name);
            if parse_log_name(&name).is_some() {
                continue;
            }
            let Some(version) = parse_manifest_name(&name) else {
                // A temporary manifest or log of a writer that died before publishing.
                let owner = owner_of(&name).unwrap_or_default().to_string();
                if !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, own)) {
                    let _ = fs::remove_file(&path);
                }
                continue;
            };
            let manifest = match self.read_manifest_uncached(version) {
                Ok(m) => m,
                Err(e) if version == latest => return Err(e),
                // A damaged old manifest: keep it (and so its files) for
                // verify() to report; never guess what it referenced.
                Err(_) => {
                    unreadable = Some(path);
                    older_kept = true;
                    continue;
                }
            };
            let files = manifest.segment_files().map(str::to_string);
            if version >= latest || pinned(version)? {
                keep_files.extend(files);
                older_kept = true;
            } else {
                garbage_files.extend(files);
                failpoint::hit("gc.before_unlink")?;
                fs::remove_file(&path).map_err(io_err("removing manifest", &path))?;
                report.manifests += 1;
            }
        }
        // Logs, oldest first. One is deleted when no version in it is
        // pinned, it is not the newest, and no older log or manifest stays:
        // the files a version dropped are learnt from its record, which
        // must outlive every version that still has them.
        let (_, bases) = self.list_manifests()?;
        // Versions other handles pin, by log: read only if a segment file
        // could be removed (see `pinned_files`).
        let mut pins: Vec<(u64, Vec<u64>)> = Vec::new();
        for (i, &base) in bases.iter().enumerate() {
            let read = self.with_log(base, |log| {
                let suspect = matches!(log.tail(), Tail::Suspect(_));
                Ok::<_, Error>((log.path().to_path_buf(), log.dropped()?, log.last_version(), suspect))
            })?;
            let Some(read) = read else { continue };
            let (path, dropped, last, suspect) = read?;
            if suspect {
                // Versions past the damage are unknown, and so what they have.
                unreadable = Some(path.clone());
            }
            garbage_files.extend(dropped);
            let mut pinned = Vec::new();
            let mut from = base;
            while let Some(version) = first_byte_locked_elsewhere(gc_file, from, last)
                .map_err(io_err("checking pins in", &self.root.join(GC_LOCK)))?
            {
                pinned.push(version);
                from = version + 1;
            }
            if i + 1 < bases.len() && pinned.is_empty() && !older_kept && unreadable.is_none() {
                failpoint::hit("gc.before_unlink")?;
                fs::remove_file(&path).map_err(io_err("removing commit log", &path))?;
                report.manifests += 1;
            } else {
                older_kept = true;
            }
            if !pinned.is_empty() {
                pins.push((base, pinned));
            }
        }

        // Segments: remove committed garbage, and orphans of dead writers;
        // none while a manifest could not be read, whose files are not known.
        if let Some(path) = unreadable {
            report.kept_for = Some(path);
            return Ok(report);
        }
        let segments_dir = self.root.join(SEGMENTS);
        let mut present = HashSet::new();
        let mut doomed = Vec::new();
        for entry in fs::read_dir(&segments_dir).map_err(io_err("listing", &segments_dir))? {
            let name = entry.map_err(io_err("listing", &segments_dir))?.file_name().to_string_lossy().into_owned();
            if keep_files.contains(&name) {
                continue;
            }
            let remove = garbage_files.contains(&name) || {
                let owner = owner_of(&name).unwrap_or_default().to_string();
                !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, own))
            };
            if remove {
                doomed.push(name.clone());
            }
            present.insert(name);
        }
        // A file is removed only if no pinned version has it either.
        if !doomed.is_empty() && !pins.is_empty() {
            match self.pinned_files(&pins) {
                Ok(files) => keep_files.extend(files),
                Err(path) => {
                    report.kept_for = Some(path);
                    return Ok(report);
                }
            }
        }
        for name in doomed.into_iter().filter(|name| !keep_files.contains(name)) {
            let path = segments_dir.join(&name);
            match fs::remove_file(&path) {
                Ok(()) => report.segments += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(format!("removing segment {}", path.display()), e)),
            }
            present.remove(&name);
        }

        // Key runs: a cache of their segment, removed with it (listed after
        // the segments, so a run of a segment created since may go too,
        // which costs a rebuild only), and temporary files of dead writers.
        let keys_dir = self.root.join(KEYS);
        let Ok(runs) = fs::read_dir(&keys_dir) else { return Ok(report) };
        for entry in runs {
            let name = entry.map_err(io_err("listing", &keys_dir))?.file_name().to_string_lossy().into_owned();
            let remove = match key_run_segment(&name) {
                Some(segment) => !keep_files.contains(segment) && !present.contains(segment),
                None => {
                    let owner = owner_of(&name).unwrap_or_default().to_string();
                    !*alive.entry(owner.clone()).or_insert_with(|| self.lease_alive(&owner, own))
                }
            };
            if remove {
                let _ = fs::remove_file(keys_dir.join(&name));
            }
        }
        Ok(report)
    }

    /// `f` of log `base`: the newest log as this handle read it moments ago
    /// (under the same locks) if it is that one, else the log read from its
    /// file; `None` when there is no such log.
    fn with_log<T>(&self, base: u64, f: impl FnOnce(&Log) -> T) -> Result<Option<T>> {
        let cached = self.log.lock();
        match cached.as_ref().filter(|log| log.base() == base) {
            Some(log) => Ok(Some(f(log))),
            None => Ok(self.open_log(base)?.map(|log| f(&log))),
        }
    }

    /// The segment files of the versions `pins` names (each log's base and
    /// the versions of it other handles pin, ascending), or the log where
    /// one could not be read. Reading pinned versions (each rebuilt from its
    /// log) is what a collection costs while other processes read and
    /// write, so it is done only when a segment file is about to be removed:
    /// the pins decide nothing else (a log with a pinned version is kept
    /// whatever the version holds).
    fn pinned_files(&self, pins: &[(u64, Vec<u64>)]) -> std::result::Result<HashSet<String>, PathBuf> {
        let mut files = HashSet::new();
        for (base, versions) in pins {
            // Each pinned version is built from the one before it.
            let built = self.with_log(*base, |log| {
                let mut previous: Option<Arc<Manifest>> = None;
                for &version in versions {
                    let manifest = Arc::new(versions::build_version(log, version, previous.as_ref()).ok().flatten()?);
                    files.extend(manifest.segment_files().map(str::to_string));
                    previous = Some(manifest);
                }
                Some(())
            });
            // A log gone under the same locks cannot be: refuse to guess.
            if !matches!(built, Ok(Some(Some(())))) {
                return Err(self.root.join(MANIFESTS).join(log_name(*base)));
            }
        }
        Ok(files)
    }
}
