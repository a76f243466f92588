//! The versions of a database: finding the newest (the newest log's last
//! record, or the newest manifest file of a database made before the commit
//! log), reading one, and publishing the next under `commit.lock` (the
//! interleavings with other processes are in `storage/dir.rs` and
//! `dir/log.rs`).

use super::*;

/// What a reader of the newest version does with a record at the end of
/// the log that looks damaged (see `dir/log.rs`, "Where a log ends").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Suspect {
    /// The caller holds `commit.lock`: nobody is writing, it is damage.
    Damage,
    /// The caller holds no lock of the database: wait for the commit in
    /// progress (a shared `commit.lock`) and look again.
    Confirm,
    /// The caller holds `gc.lock` and may not wait: take it for the end
    /// (it looked at the end moments ago with [`Suspect::Confirm`]).
    End,
}

/// Parses manifest `version` read from `origin` (a manifest file or a log),
/// checking its checksum and that it is the version asked for.
pub(super) fn parse_version(json: &[u8], origin: &Path, version: u64) -> Result<Manifest> {
    let origin = format!("{} (version {version})", origin.display());
    let manifest = Manifest::from_json(json, &origin)?;
    if manifest.version != version {
        return Err(Error::corruption(format!("manifest {origin} claims version {}", manifest.version)));
    }
    Ok(manifest)
}

impl DbDir {
    /// The newest published version (0 for an empty database). The caller
    /// holds no lock of the database (a committer uses
    /// [`DbDir::latest_version_locked`]).
    pub fn latest_version(&self) -> Result<u64> {
        self.newest(Suspect::Confirm)
    }

    /// The newest published version, read by the holder of `commit.lock`.
    pub fn latest_version_locked(&self, _lock: &CommitLock) -> Result<u64> {
        self.newest(Suspect::Damage)
    }

    /// The newest version kept as a manifest file (0 if none), and the
    /// first version of every log, ascending.
    pub(super) fn list_manifests(&self) -> Result<(u64, Vec<u64>)> {
        let dir = self.root.join(MANIFESTS);
        let (mut newest_file, mut logs) = (0, Vec::new());
        for entry in fs::read_dir(&dir).map_err(io_err("listing", &dir))? {
            let entry = entry.map_err(io_err("listing", &dir))?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
            if let Some(v) = parse_manifest_name(&name) {
                newest_file = newest_file.max(v);
            } else if let Some(base) = parse_log_name(&name) {
                logs.push(base);
            }
        }
        logs.sort_unstable();
        Ok((newest_file, logs))
    }

    pub(super) fn open_log(&self, base: u64) -> Result<Option<Log>> {
        let path = self.root.join(MANIFESTS).join(log_name(base));
        match Log::open(&path, base) {
            Ok(log) => Ok(Some(log)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::InvalidData || e.kind() == io::ErrorKind::UnexpectedEof => {
                Err(Error::corruption(format!("commit log {} is damaged: {e}", path.display())))
            }
            Err(e) => Err(Error::io(format!("reading commit log {}", path.display()), e)),
        }
    }

    /// The newest version: the newest log's last record, or the newest
    /// manifest file of a database without a log.
    pub(super) fn newest(&self, suspect: Suspect) -> Result<u64> {
        let mut confirmed = false;
        // A log may be collected between listing and opening it, when a
        // newer one began meanwhile: list again.
        for _ in 0..64 {
            let (newest_file, logs) = self.list_manifests()?;
            let Some(&base) = logs.last() else { return Ok(newest_file) };
            let mut cached = self.log.lock().unwrap();
            match cached.as_mut() {
                Some(log) if log.base() == base => {
                    log.refresh().map_err(io_err("reading commit log", log.path()))?;
                }
                _ => match self.open_log(base)? {
                    Some(log) => *cached = Some(log),
                    None => continue,
                },
            }
            let log = cached.as_ref().expect("just read");
            if let Tail::Suspect(offset) = log.tail() {
                let damage = || {
                    Error::corruption(format!(
                        "commit log {} is damaged at byte {offset}: the record of version {} fails its checksum \
                         (versions up to {} are intact); restore the database from a backup or a snapshot",
                        log.path().display(),
                        log.last_version() + 1,
                        log.last_version()
                    ))
                };
                match suspect {
                    Suspect::Damage => return Err(damage()),
                    Suspect::Confirm if confirmed => return Err(damage()),
                    Suspect::Confirm => {
                        drop(cached);
                        self.wait_for_commit()?;
                        confirmed = true;
                        continue;
                    }
                    Suspect::End => {}
                }
            }
            return Ok(newest_file.max(log.last_version()));
        }
        Err(Error::operational(format!(
            "the commit logs of {} kept changing while they were read; try again",
            self.root.display()
        )))
    }

    /// Waits until no commit is in progress (a commit holds `commit.lock`
    /// while it writes a record). Without a `commit.lock` (read-only media)
    /// nobody writes.
    fn wait_for_commit(&self) -> Result<()> {
        let path = self.root.join(COMMIT_LOCK);
        let Ok(file) = File::open(&path) else { return Ok(()) };
        flock(&file, libc::LOCK_SH).map_err(io_err("locking", &path))?;
        let _ = flock(&file, libc::LOCK_UN);
        Ok(())
    }

    /// Path of manifest `version`.
    pub fn manifest_path(&self, version: u64) -> PathBuf {
        self.root.join(MANIFESTS).join(manifest_name(version))
    }

    /// Reads manifest `version` (0 is the empty database), checking its checksum.
    /// Version numbers are never reused, so a cached copy is always right.
    pub fn read_manifest(&self, version: u64) -> Result<Arc<Manifest>> {
        if version == 0 {
            return Ok(Arc::new(Manifest::default()));
        }
        if let Some(m) = self.cache.lock().unwrap().as_ref().filter(|m| m.version == version) {
            return Ok(m.clone());
        }
        let manifest = Arc::new(self.read_manifest_uncached(version)?);
        *self.cache.lock().unwrap() = Some(manifest.clone());
        Ok(manifest)
    }

    /// Reads and checks manifest `version` from disk, bypassing the cache.
    pub fn read_manifest_uncached(&self, version: u64) -> Result<Manifest> {
        // The newest log, as last read, holds the versions mostly asked for.
        let cached = match self.log.lock().unwrap().as_ref() {
            Some(log) => log.manifest(version)?.map(|json| (json, log.path().to_path_buf())),
            None => None,
        };
        let (json, origin) = match cached {
            Some(found) => found,
            None => {
                let path = self.manifest_path(version);
                match fs::read(&path) {
                    Ok(json) => (json, path),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => self.read_from_logs(version)?,
                    Err(e) => return Err(Error::io(format!("reading manifest {}", path.display()), e)),
                }
            }
        };
        parse_version(&json, &origin, version)
    }

    /// The manifest JSON of `version` from the log that holds it.
    fn read_from_logs(&self, version: u64) -> Result<(Vec<u8>, PathBuf)> {
        let (_, logs) = self.list_manifests()?;
        let missing = || {
            Error::operational(format!(
                "version {version} of {} is not there (collected, or not published yet)",
                self.root.display()
            ))
        };
        let Some(&base) = logs.iter().rev().find(|&&b| b <= version) else { return Err(missing()) };
        let log = self.open_log(base)?.ok_or_else(missing)?;
        let json = log.manifest(version)?.ok_or_else(missing)?;
        Ok((json, log.path().to_path_buf()))
    }

    /// Publishes `manifest` as its version and waits until it is durable
    /// (see [`DbDir::publish_unflushed`]). Returns `Ok(false)` when that
    /// version already exists.
    pub fn publish(&self, manifest: &Manifest, lock: &CommitLock) -> Result<bool> {
        match self.publish_unflushed(manifest, lock)? {
            Some(flush) => flush.wait().map(|_| true),
            None => Ok(false),
        }
    }

    /// Publishes `manifest` as its version: appends its record to the newest
    /// log, or begins a new log with it when the log is full, its end is not
    /// clean or there is none. The caller holds `commit.lock` and numbered the
    /// manifest one above the newest version it saw under it; it lets go of
    /// the lock and then waits for the returned [`Flush`] (one `fdatasync`),
    /// so that other commits proceed meanwhile. `None` when that version
    /// already exists.
    pub fn publish_unflushed(&self, manifest: &Manifest, lock: &CommitLock) -> Result<Option<Flush>> {
        let latest = self.latest_version_locked(lock)?;
        if manifest.version <= latest {
            return Ok(None);
        }
        let before = self.read_manifest(latest)?;
        let now: HashSet<&str> = manifest.segment_files().collect();
        let dropped: Vec<&str> = before.segment_files().filter(|f| !now.contains(f)).collect();
        let json = manifest.to_json();
        let durable = !self.is_private();
        let mut cached = self.log.lock().unwrap();
        let mut flush = None;
        if let Some(log) = cached.as_mut().filter(|log| log.last_version() == latest) {
            let record = Record::new(manifest.version, log.last_crc(), &dropped, &json)?;
            if log.takes(&record) {
                flush = Some(log.append(record, durable)?);
            } else if durable {
                log.flush()?;
            }
        }
        let flush = match flush {
            Some(flush) => flush,
            None => {
                match self.begin_log(Record::new(manifest.version, 0, &dropped, &json)?, manifest.version, durable)? {
                    Some(log) => {
                        *cached = Some(log);
                        Flush::done()
                    }
                    None => return Ok(None),
                }
            }
        };
        drop(cached);
        failpoint::hit("publish.after_link")?;
        // The next transaction of this handle starts from it: spare
        // reading back what was just written (numbers are never reused).
        *self.cache.lock().unwrap() = Some(Arc::new(manifest.clone()));
        Ok(Some(flush))
    }

    /// Writes a new log holding `record` (of `version`) under a temporary
    /// name of this handle's lease and links it to its name. `None` when a
    /// log of that name exists.
    fn begin_log(&self, record: Record, version: u64, durable: bool) -> Result<Option<Log>> {
        if !self.marker_says_log.load(Ordering::Relaxed) {
            // Before the first log appears, so that older builds refuse the database.
            open::write_marker(&self.root, LOG_FORMAT_VERSION, durable)?;
            self.marker_says_log.store(true, Ordering::Relaxed);
        }
        let dir = self.root.join(MANIFESTS);
        let tmp = dir.join(format!("tmp-{}-{}", self.lease_id()?, log_name(version)));
        let target = dir.join(log_name(version));
        let mut log = match Log::create(&tmp, version, record, durable) {
            Ok(log) => log,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        if let Err(e) = failpoint::hit("publish.before_link") {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        let linked = fs::hard_link(&tmp, &target);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                failpoint::hit("log.after_link")?;
                if durable {
                    sync_dir(&dir)?;
                }
                log.linked_as(target);
                Ok(Some(log))
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(None),
            Err(e) => Err(Error::io(format!("publishing commit log {}", target.display()), e)),
        }
    }
}
