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
    /// Take it for the end: the caller holds `gc.lock` and may not wait
    /// (it looked at the end moments ago with [`Suspect::Confirm`]), or it
    /// only reads ahead ([`DbDir::catch_up`]).
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

/// Version `version` as `log` holds it (`None` if it does not): its
/// nearest whole manifest at or before it, or `base` (an older version,
/// already read) when that is nearer, and the changes after it.
pub(super) fn build_version(log: &Log, version: u64, base: Option<&Arc<Manifest>>) -> Result<Option<Manifest>> {
    let Some(whole) = log.whole_at_or_before(version) else {
        return match log.manifest(version)? {
            Some(_) => Err(Error::corruption(format!(
                "commit log {} is damaged: no whole manifest precedes the change record of version {version}",
                log.path().display()
            ))),
            None => Ok(None),
        };
    };
    let record = |v: u64| Ok::<_, Error>(log.manifest(v)?.expect("the log holds every version up to `version`"));
    let (mut manifest, next) = match base.filter(|b| (whole..version).contains(&b.version)) {
        Some(base) => (Manifest::clone(base), base.version + 1),
        None => (parse_version(&record(whole)?, log.path(), whole)?, whole + 1),
    };
    for v in next..=version {
        manifest = manifest.apply_delta(&record(v)?, &format!("{} (version {v})", log.path().display()))?;
    }
    Ok(Some(manifest))
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

    /// Reads every commit log whole, old ones too: an error naming the
    /// first log with a damaged record (one written whole and changed
    /// since, see `dir/log.rs`), with the versions before it that are
    /// intact. Returns how many logs were read.
    pub fn verify_logs(&self) -> Result<usize> {
        let (_, logs) = self.list_manifests()?;
        let mut read = 0;
        for base in logs {
            // A log collected since the listing is no longer the database's.
            let Some(log) = self.open_log(base)? else { continue };
            if let Tail::Suspect(offset) = log.tail() {
                return Err(Error::corruption(format!(
                    "commit log {} is damaged at byte {offset}: the record of version {} fails its checksum \
                     (versions {} to {} are intact)",
                    log.path().display(),
                    log.last_version() + 1,
                    log.base(),
                    log.last_version()
                )));
            }
            read += 1;
        }
        Ok(read)
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
        // The newest log as last read is still the newest while it ends in
        // zeros: a committer seals it before a newer one begins (`dir/log.rs`).
        // (A log's versions are all above those of manifest files.)
        if let Some(log) = self.log.lock().as_mut() {
            log.refresh().map_err(io_err("reading commit log", log.path()))?;
            if log.tail() == Tail::Clean {
                return Ok(log.last_version());
            }
        }
        let mut confirmed = false;
        // A log may be collected between listing and opening it, when a
        // newer one began meanwhile: list again.
        for _ in 0..64 {
            let (newest_file, logs) = self.list_manifests()?;
            let Some(&base) = logs.last() else { return Ok(newest_file) };
            let mut cached = self.log.lock();
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
                         (versions up to {} are intact). Restore the database from a backup or a snapshot, or \
                         read version {} and export what you need: open it read-only with recover \
                         (Python: swingdb.connect({:?}, read_only=True, recover=True); then EXPORT DATABASE)",
                        log.path().display(),
                        log.last_version() + 1,
                        log.last_version(),
                        log.last_version(),
                        self.root.display().to_string(),
                    ))
                };
                match suspect {
                    Suspect::Damage => return Err(damage()),
                    Suspect::Confirm if confirmed && self.recover.load(Ordering::Relaxed) => {}
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
    /// Version numbers are never reused, so a cached copy is always right,
    /// and a version before the asked one is where its changes apply.
    pub fn read_manifest(&self, version: u64) -> Result<Arc<Manifest>> {
        if version == 0 {
            return Ok(Arc::new(Manifest::default()));
        }
        let cached = self.cache.lock().clone();
        if let Some(m) = cached.as_ref().filter(|m| m.version == version) {
            return Ok(m.clone());
        }
        let manifest = Arc::new(self.read_version(version, cached.as_ref())?);
        *self.cache.lock() = Some(manifest.clone());
        Ok(manifest)
    }

    /// Reads the newest whole version into the cache, holding no lock (a
    /// record being written is left for later): a committer does it before
    /// it takes `commit.lock`, so that under the lock, which every other
    /// committer waits for, it reads only the versions published meanwhile.
    pub fn catch_up(&self) -> Result<()> {
        let newest = self.newest(Suspect::End)?;
        self.read_manifest(newest).map(drop)
    }

    /// Reads and checks manifest `version` from disk, bypassing the cache.
    pub fn read_manifest_uncached(&self, version: u64) -> Result<Manifest> {
        self.read_version(version, None)
    }

    /// Reads manifest `version`, from `base` (an older version) on when
    /// its log's changes lead from there.
    fn read_version(&self, version: u64, base: Option<&Arc<Manifest>>) -> Result<Manifest> {
        // The newest log, as last read, holds the versions mostly asked for.
        if let Some(log) = self.log.lock().as_ref() {
            if let Some(manifest) = build_version(log, version, base)? {
                return Ok(manifest);
            }
        }
        let path = self.manifest_path(version);
        match fs::read(&path) {
            Ok(json) => parse_version(&json, &path, version),
            Err(e) if e.kind() == io::ErrorKind::NotFound => self.read_from_logs(version),
            Err(e) => Err(Error::io(format!("reading manifest {}", path.display()), e)),
        }
    }

    /// Manifest `version` from the log that holds it.
    fn read_from_logs(&self, version: u64) -> Result<Manifest> {
        let (_, logs) = self.list_manifests()?;
        let missing = || {
            Error::operational(format!(
                "version {version} of {} is not there (collected, or not published yet)",
                self.root.display()
            ))
        };
        let Some(&base) = logs.iter().rev().find(|&&b| b <= version) else { return Err(missing()) };
        let log = self.open_log(base)?.ok_or_else(missing)?;
        build_version(&log, version, None)?.ok_or_else(missing)
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
        let durable = !self.is_private();
        self.mark_log_format(durable)?;
        let mut cached = self.log.lock();
        let (mut flush, mut whole) = (None, None);
        if let Some(log) = cached.as_mut().filter(|log| log.last_version() == latest) {
            // Its change from the version before, unless the log wants a
            // whole manifest again (see `dir/log.rs`).
            // The whole one is kept for a new log, should this one be full.
            let change = Some(manifest.delta_json(&before)).filter(|c| log.takes_change(c.len()));
            let json = match &change {
                Some(change) => change,
                None => whole.insert(manifest.to_json()),
            };
            let record = Record::new(manifest.version, log.last_crc(), &dropped, json)?;
            if log.takes(&record) {
                flush = Some(log.append(record, durable)?);
            } else if durable {
                log.flush()?;
            }
        }
        let flush = match flush {
            Some(flush) => flush,
            None => {
                if let Some(log) = cached.as_mut().filter(|log| log.tail() == Tail::Clean) {
                    log.seal()?;
                }
                let whole = whole.unwrap_or_else(|| manifest.to_json());
                let record = Record::new(manifest.version, 0, &dropped, &whole)?;
                match self.begin_log(record, manifest.version, durable)? {
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
        *self.cache.lock() = Some(Arc::new(manifest.clone()));
        Ok(Some(flush))
    }

    /// Makes the format marker say the database has a commit log that may
    /// hold change records, before the first such log or record appears, so
    /// that older builds refuse the database rather than misread it.
    fn mark_log_format(&self, durable: bool) -> Result<()> {
        if !self.marker_says_log.load(Ordering::Relaxed) {
            open::write_marker(&self.root, LOG_FORMAT_VERSION, durable)?;
            self.marker_says_log.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Writes a new log holding `record` (of `version`) under a temporary
    /// name of this handle's lease and links it to its name. `None` when a
    /// log of that name exists.
    fn begin_log(&self, record: Record, version: u64, durable: bool) -> Result<Option<Log>> {
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
