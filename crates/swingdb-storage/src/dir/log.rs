//! The commit log: committed versions as records appended to one file,
//! `manifests/<base>.log`, so that a commit costs one `fdatasync` of a file
//! whose blocks were written (with zeros) beforehand: only the record's own
//! pages reach the disk; no file is created, no size or directory changes.
//! (A manifest file per version cost two flushes: the file's and its
//! directory's.)
//!
//! # Format
//! ```text
//! header (16 bytes):  "SWGLOG01"  base: u64                    (little endian)
//! record:             len: u32  dropped_len: u32  version: u64  prev: u32  crc: u32
//!                     dropped   (dropped_len bytes: segment file names, '\n' between)
//!                     manifest  (len - dropped_len bytes: the version's checksummed JSON,
//!                                or its change from the version before, which
//!                                begins with `D`: see `storage/manifest/delta.rs`)
//! ```
//! The first record of a log is version `base`, every next one the version
//! after it; `prev` is the previous record's `crc` (0 for the first) and
//! `crc` the CRC-32 of the record header's first 20 bytes and the payload.
//! `dropped` names the segment files the previous version had and this one
//! has not: the garbage collector learns from it which files left the
//! database without parsing manifests.
//!
//! The first record of a log is a whole manifest; a later one is a change
//! while the changes since the last whole one stay smaller than it (at
//! least [`CHANGES_ROOM`]), so that a version is read from at most one whole
//! manifest and changes of about its size, and a commit writes, and every
//! other process reads, what it changed rather than the whole database. After the last record the file holds
//! zeros (written when the file was made or grown, and synced with the next
//! record, so that appending never changes the file's size or block map).
//!
//! # Where a log ends
//! Records are taken while they are valid. The first one that is not is:
//! - all zeros: the end ([`Tail::Clean`]);
//! - a record with a zero byte in its payload (names and JSON never have
//!   one): a write that did not finish, because its process died in it or the
//!   machine lost power before the record was synced, or one still being
//!   written by another process. Bytes not yet written read as zeros. It is
//!   the end too ([`Tail::Torn`]): such a commit was never acknowledged.
//!   So is a record whose length runs past the end of the file, or a seal.
//!   But a write that did not finish is the last thing in its log (nothing
//!   is appended after it), so if a valid record of a later version follows
//!   anywhere in the file, the record was written whole and damaged since
//!   (one flipped bit in its length, or a byte of it zeroed): that is
//!   [`Tail::Suspect`], never the end (see `Log::refresh`; taking it for
//!   the end lost every commit after it, for good once the next commit
//!   began a new log). Nor is the last record when it verifies with one
//!   bit of its length flipped back, or its one zero byte (amid written
//!   bytes of its sector) given a value back: it too was written whole.
//! - anything else ([`Tail::Suspect`]): every byte was written and the record
//!   is wrong. That is damage (a disk, an edit) unless a committer is between
//!   two bytes of its header right now; under `commit.lock`, where nobody
//!   writes, it is damage, reported as corruption rather than taken for the
//!   end (which would silently take the database back in time).
//!
//! A committer that begins a new log while the last one ends in zeros first
//! *seals* it: writes a record header claiming more bytes than any file holds
//! (`len` = 2^32 - 1), which readers take for a record not written whole. So
//! a log that ends in zeros is the newest log, and a reader that last read
//! it needs no directory listing to know there is none newer.
//!
//! A committer that finds anything but zeros after the last record starts a
//! new log rather than writing over the remains; so in a log that is
//! appended to, the bytes after the last record are zeros, and a record is
//! never read together with leftovers of another (the `prev` chain is a
//! second line of defence).
//!
//! # Interleavings with other processes
//! - Appending, growing and starting a log happen under `commit.lock` only,
//!   at the end of the newest log (see `storage/dir.rs` for the lock).
//! - A reader may read while a record is written: it sees the end before
//!   it (zeros or a torn record), i.e. the version before, which is what it
//!   would have seen a moment earlier. It may read a record before it is
//!   synced, as with the manifest file before its directory was synced:
//!   a commit that is visible but lost by a power failure was never
//!   acknowledged, and everyone who saw it was lost with it.
//! - A new log is written and synced whole under a temporary name and then
//!   linked to its name: a log is never seen without its first record.
//! - A log is sealed before the next one is linked (under `commit.lock`): a
//!   reader that read zeros after the last record of a log read them before
//!   any newer log existed, so the version it takes is the newest as of that
//!   moment. The seal need not be durable: after a crash nobody holds a log
//!   as last read, and readers list the directory. A seal is never written
//!   over (the log ends in it); a commit that sealed and then failed leaves
//!   a log that ends like a torn one, and the next commit begins a new log.
//! - The collector deletes a log only when no version in it, nor in any
//!   older log, is pinned, and never the newest (see `dir/gc.rs`); a reader
//!   that holds a deleted log open still reads it.

use super::super::failpoint;
use super::super::manifest::DELTA_MARK;
use crate::dir::files::{create_private_file, io_err};
use crate::error::{Error, Result};
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"SWGLOG01";
const FILE_HEADER: u64 = 16;
const RECORD_HEADER: usize = 24;
/// The size a new log starts with (then doubled as needed).
const FIRST_SIZE: u64 = 64 << 10;
/// A log that would grow past this starts a new one instead.
const ROTATE_AT: u64 = 4 << 20;
/// The bytes of change records a log takes after a whole manifest smaller
/// than this before the next whole one.
const CHANGES_ROOM: u64 = 64 << 10;
/// Zeros are written in pieces of this size.
static ZEROS: [u8; 64 << 10] = [0; 64 << 10];

/// The name of the log whose first version is `base`.
pub(super) fn log_name(base: u64) -> String {
    format!("{base:020}.log")
}

/// The first version of a log named `name`, if it is one.
pub(super) fn parse_log_name(name: &str) -> Option<u64> {
    let stem = name.strip_suffix(".log")?;
    (stem.len() == 20).then(|| stem.parse().ok()).flatten()
}

/// What follows the last valid record of a log (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tail {
    /// Zeros: nothing was written after it.
    Clean,
    /// A record that was not written to its end.
    Torn,
    /// A fully written record that is wrong, at this offset.
    Suspect(u64),
}

/// Where one version's record lies in its log.
#[derive(Debug, Clone, Copy)]
struct Entry {
    offset: u64,
    len: u32,
    dropped_len: u32,
    crc: u32,
    /// A change from the version before rather than a whole manifest.
    change: bool,
}

/// One record: what a commit appends.
pub(super) struct Record {
    /// Header and payload, as written.
    pub(super) bytes: Vec<u8>,
    entry: Entry,
}

impl Record {
    /// The record of `version`, following a record whose crc is `prev`;
    /// `manifest` is its whole manifest or its change record.
    pub(super) fn new(version: u64, prev: u32, dropped: &[&str], manifest: &[u8]) -> Result<Self> {
        let names = dropped.join("\n");
        let len = u32::try_from(names.len() + manifest.len())
            .map_err(|_| Error::operational(format!("the manifest of version {version} exceeds 4 GiB")))?;
        let mut bytes = Vec::with_capacity(RECORD_HEADER + len as usize);
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&(names.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&prev.to_le_bytes());
        let crc = record_crc(&bytes, &[names.as_bytes(), manifest]);
        bytes.extend_from_slice(&crc.to_le_bytes());
        bytes.extend_from_slice(names.as_bytes());
        bytes.extend_from_slice(manifest);
        let change = manifest.first() == Some(&DELTA_MARK);
        Ok(Self { bytes, entry: Entry { offset: 0, len, dropped_len: names.len() as u32, crc, change } })
    }

    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// The `crc` of a record: CRC-32 of its header's first 20 bytes and its payload.
fn record_crc(head: &[u8], payload: &[&[u8]]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(head);
    payload.iter().for_each(|part| hasher.update(part));
    hasher.finalize()
}

/// One log file and its valid records, as far as they were read.
#[derive(Debug)]
pub(super) struct Log {
    base: u64,
    path: PathBuf,
    file: File,
    /// `entries[i]` is the record of version `base + i`.
    entries: Vec<Entry>,
    /// The offset after the last valid record.
    pub(super) end: u64,
    tail: Tail,
    /// The file opened for writing, once this handle appended to it.
    writer: Option<File>,
    /// The size of the last whole manifest's record, and of the change
    /// records after it.
    last_whole: u64,
    changes: u64,
}

impl Log {
    /// Opens the log `path` whose first version is `base` and reads its records.
    pub(super) fn open(path: &Path, base: u64) -> io::Result<Self> {
        let file = File::open(path)?;
        let mut header = [0u8; FILE_HEADER as usize];
        file.read_exact_at(&mut header, 0)?;
        if &header[..8] != MAGIC || u64::from_le_bytes(header[8..].try_into().unwrap()) != base {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "not a swingdb commit log (its header is damaged)"));
        }
        let mut log = Self {
            base,
            path: path.to_path_buf(),
            file,
            entries: Vec::new(),
            end: FILE_HEADER,
            tail: Tail::Clean,
            writer: None,
            last_whole: 0,
            changes: 0,
        };
        log.refresh()?;
        Ok(log)
    }

    /// Starts a new log at `tmp` holding `record` (the version `base`),
    /// written and (if `durable`) synced whole; the caller links it to its
    /// name. Its first record's `prev` must be 0.
    pub(super) fn create(tmp: &Path, base: u64, record: Record, durable: bool) -> Result<Self> {
        let file = create_private_file(tmp).map_err(io_err("creating commit log", tmp))?;
        let size = (FILE_HEADER + record.size()).next_multiple_of(FIRST_SIZE);
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&base.to_le_bytes());
        let written = file
            .write_all_at(&header, 0)
            .and_then(|_| fill_zeros(&file, FILE_HEADER, size, durable))
            .and_then(|_| file.write_all_at(&record.bytes, FILE_HEADER))
            .and_then(|_| if durable { file.sync_all() } else { Ok(()) });
        written.map_err(io_err("writing commit log", tmp))?;
        let mut log = Self {
            base,
            path: tmp.to_path_buf(),
            writer: Some(file.try_clone().map_err(io_err("opening commit log", tmp))?),
            file,
            entries: Vec::new(),
            end: FILE_HEADER,
            tail: Tail::Clean,
            last_whole: 0,
            changes: 0,
        };
        log.push(record.entry);
        Ok(log)
    }

    /// Names the log by its final path once it is linked there.
    pub(super) fn linked_as(&mut self, path: PathBuf) {
        self.path = path;
    }

    /// The file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The first version in this log.
    pub(super) fn base(&self) -> u64 {
        self.base
    }

    /// The newest version read from this log.
    pub(super) fn last_version(&self) -> u64 {
        self.base + self.entries.len() as u64 - 1
    }

    /// The crc of the last record, which the next one names as `prev`.
    pub(super) fn last_crc(&self) -> u32 {
        self.entries.last().map_or(0, |e| e.crc)
    }

    /// What follows the last valid record, as of the last read.
    pub(super) fn tail(&self) -> Tail {
        self.tail
    }

    /// Reads the records appended since the last read.
    pub(super) fn refresh(&mut self) -> io::Result<()> {
        // The file's size, asked once a record is there to read (most
        // refreshes find zeros: nothing new). The file only grows, so a size
        // taken after the header was read bounds that record as well.
        let mut known_size = None;
        loop {
            let mut header = [0u8; RECORD_HEADER];
            match self.file.read_exact_at(&mut header, self.end) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    self.tail = Tail::Clean;
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
            if header.iter().all(|&b| b == 0) {
                self.tail = Tail::Clean;
                return Ok(());
            }
            let field = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap());
            let (len, dropped_len, prev, crc) = (field(0), field(4), field(16), field(20));
            let version = u64::from_le_bytes(header[8..16].try_into().unwrap());
            let size = match known_size {
                Some(size) => size,
                None => *known_size.insert(self.file.metadata()?.len()),
            };
            // A length past the end of the file is a header not written whole
            // (or a seal), unless a valid record follows.
            if len == 0 || self.end + RECORD_HEADER as u64 + len as u64 > size {
                self.tail = self.torn_unless_followed(&header, size)?;
                return Ok(());
            }
            let mut payload = vec![0u8; len as usize];
            let read = self.file.read_exact_at(&mut payload, self.end + RECORD_HEADER as u64);
            if read.is_err() || payload.contains(&0) {
                self.tail = self.torn_unless_followed(&header, size)?;
                return Ok(());
            }
            let expected = self.base + self.entries.len() as u64;
            if record_crc(&header[..20], &[&payload]) != crc
                || version != expected
                || prev != self.last_crc()
                || dropped_len > len
            {
                self.tail = Tail::Suspect(self.end);
                return Ok(());
            }
            let change = payload.get(dropped_len as usize) == Some(&DELTA_MARK);
            self.push(Entry { offset: self.end, len, dropped_len, crc, change });
        }
    }

    /// What a record at the end that looks unfinished is: [`Tail::Torn`]
    /// if it is a seal, or if no valid record follows it anywhere in the
    /// file (a write that did not finish is the last thing in its log: no
    /// commit appends after it); otherwise [`Tail::Suspect`]: a record
    /// written whole and damaged since (a flipped bit in its length, a byte
    /// of its payload zeroed), which must not be taken for the end, or every
    /// commit after it would silently be lost (and the next commit would
    /// start a new log over them).
    ///
    /// A record of a later version is searched for at every byte offset
    /// after this one (its own length cannot be trusted), checked by its
    /// checksum. A reader without `commit.lock` may find the record a
    /// committer appended just after finishing this one: it reads
    /// `Suspect`, waits for the commit and reads again (see
    /// `Suspect::Confirm` in `dir/versions.rs`).
    fn torn_unless_followed(&self, header: &[u8; RECORD_HEADER], size: u64) -> io::Result<Tail> {
        if header[..4] == u32::MAX.to_le_bytes() && header[4..].iter().all(|&b| b == 0) {
            return Ok(Tail::Torn);
        }
        if self.verifies_with_one_change_back(header, size)? {
            return Ok(Tail::Suspect(self.end));
        }
        let start = self.end + 1;
        if start + RECORD_HEADER as u64 > size {
            return Ok(Tail::Torn);
        }
        let mut rest = vec![0u8; (size - start) as usize];
        self.file.read_exact_at(&mut rest, start)?;
        let expected = self.base + self.entries.len() as u64;
        let field = |at: usize| u32::from_le_bytes(rest[at..at + 4].try_into().unwrap()) as usize;
        for at in 0..=rest.len() - RECORD_HEADER {
            let version = u64::from_le_bytes(rest[at + 8..at + 16].try_into().unwrap());
            if version <= expected || version - expected > 1 << 20 {
                continue;
            }
            let (len, dropped_len) = (field(at), field(at + 4));
            let payload = rest.get(at + RECORD_HEADER..at + RECORD_HEADER + len);
            if let Some(payload) = payload.filter(|p| len > 0 && dropped_len <= len && !p.contains(&0)) {
                if record_crc(&rest[at..at + 20], &[payload]) == field(at + 20) as u32 {
                    return Ok(Tail::Suspect(self.end));
                }
            }
        }
        Ok(Tail::Torn)
    }

    /// Whether the record at the end, which looks unfinished, verifies with
    /// one change undone: one bit of its length flipped back, or the one
    /// zero byte of its payload given back a value, where the rest of that
    /// byte's disk sector holds payload (a write that did not finish leaves
    /// whole sectors of zeros, never one zero byte among written ones). Such
    /// a record was written whole and damaged since. The last record of a log
    /// has no later one to tell so (see [`Self::torn_unless_followed`]): a
    /// flipped bit in its length silently dropped the last commit.
    fn verifies_with_one_change_back(&self, header: &[u8; RECORD_HEADER], size: u64) -> io::Result<bool> {
        /// The sectors a disk writes whole (the smallest there are).
        const SECTOR: u64 = 512;
        let start = self.end + RECORD_HEADER as u64;
        let Some(room) = size.checked_sub(start) else { return Ok(false) };
        let mut rest = vec![0u8; room as usize];
        self.file.read_exact_at(&mut rest, start)?;
        let crc = u32::from_le_bytes(header[20..24].try_into().unwrap());
        let len = u32::from_le_bytes(header[..4].try_into().unwrap());
        let mut fields = [0u8; 20];
        fields.copy_from_slice(&header[..20]);
        for bit in 0..32 {
            let candidate = len ^ (1 << bit);
            let Some(payload) = rest.get(..candidate as usize).filter(|p| !p.is_empty() && !p.contains(&0)) else {
                continue;
            };
            fields[..4].copy_from_slice(&candidate.to_le_bytes());
            if record_crc(&fields, &[payload]) == crc {
                return Ok(true);
            }
        }
        let Some(payload) = rest.get_mut(..len as usize) else { return Ok(false) };
        let mut zeros = payload.iter().enumerate().filter(|(_, &b)| b == 0).map(|(at, _)| at);
        let (Some(zero), None) = (zeros.next(), zeros.next()) else { return Ok(false) };
        let sector = (start + zero as u64) / SECTOR;
        let same_sector = |at: usize| (start + at as u64) / SECTOR == sector;
        if !(zero > 0 && same_sector(zero - 1) || zero + 1 < payload.len() && same_sector(zero + 1)) {
            return Ok(false);
        }
        for value in 1..=u8::MAX {
            payload[zero] = value;
            if record_crc(&header[..20], &[&*payload]) == crc {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Takes in the record `entry` (its offset ignored) at the end.
    fn push(&mut self, entry: Entry) {
        let size = RECORD_HEADER as u64 + entry.len as u64;
        match entry.change {
            true => self.changes += size,
            false => (self.last_whole, self.changes) = (size, 0),
        }
        self.entries.push(Entry { offset: self.end, ..entry });
        self.end += size;
    }

    /// Whether a change record of `size` bytes may follow (see the module
    /// docs); a whole manifest must otherwise.
    pub(super) fn takes_change(&self, size: usize) -> bool {
        self.changes + (RECORD_HEADER + size) as u64 <= self.last_whole.max(CHANGES_ROOM)
    }

    /// The newest version at or before `version` whose record is a whole
    /// manifest, if this log holds `version`.
    pub(super) fn whole_at_or_before(&self, version: u64) -> Option<u64> {
        let at = usize::try_from(version.checked_sub(self.base)?).ok()?;
        let whole = self.entries.get(..=at)?.iter().rposition(|e| !e.change)?;
        Some(self.base + whole as u64)
    }

    fn entry(&self, version: u64) -> Option<&Entry> {
        self.entries.get(usize::try_from(version.checked_sub(self.base)?).ok()?)
    }

    /// The manifest of `version` as stored (the payload after the dropped
    /// names: the whole manifest or its change), if this log holds it.
    pub(super) fn manifest(&self, version: u64) -> Result<Option<Vec<u8>>> {
        let Some(entry) = self.entry(version) else { return Ok(None) };
        let mut json = vec![0u8; (entry.len - entry.dropped_len) as usize];
        self.file
            .read_exact_at(&mut json, entry.offset + RECORD_HEADER as u64 + entry.dropped_len as u64)
            .map_err(io_err("reading commit log", &self.path))?;
        Ok(Some(json))
    }

    /// Every segment file a version of this log dropped (that the version
    /// before it had); only the records that dropped any are read.
    pub(super) fn dropped(&self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in self.entries.iter().filter(|e| e.dropped_len > 0) {
            let mut bytes = vec![0u8; entry.dropped_len as usize];
            self.file
                .read_exact_at(&mut bytes, entry.offset + RECORD_HEADER as u64)
                .map_err(io_err("reading commit log", &self.path))?;
            let text = String::from_utf8_lossy(&bytes);
            names.extend(text.split('\n').filter(|n| !n.is_empty()).map(str::to_string));
        }
        Ok(names)
    }

    /// Whether `record` fits in this log without starting a new one: the
    /// log ends in zeros and stays below the size where a new one begins.
    pub(super) fn takes(&self, record: &Record) -> bool {
        self.tail == Tail::Clean && self.end + record.size() <= ROTATE_AT
    }

    /// The file opened for writing.
    fn writer(&mut self) -> Result<&File> {
        if self.writer.is_none() {
            let file =
                File::options().write(true).open(&self.path).map_err(io_err("opening commit log", &self.path))?;
            self.writer = Some(file);
        }
        Ok(self.writer.as_ref().expect("just opened"))
    }

    /// Seals this log, which ends in zeros, before a newer one begins (see
    /// the module docs).
    pub(super) fn seal(&mut self) -> Result<()> {
        let mut header = [0u8; RECORD_HEADER];
        header[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let end = self.end;
        self.writer()?.write_all_at(&header, end).map_err(io_err("sealing commit log", &self.path))?;
        self.tail = Tail::Torn;
        Ok(())
    }

    /// Appends `record` (the version after the last) at the end, growing
    /// the file with zeros first if need be. It is durable once the
    /// returned [`Flush`] is waited for.
    pub(super) fn append(&mut self, record: Record, durable: bool) -> Result<Flush> {
        self.writer()?;
        let file = self.writer.as_ref().expect("just opened");
        let size = file.metadata().map_err(io_err("inspecting commit log", &self.path))?.len();
        let needed = self.end + record.size();
        if needed > size {
            let grown = (size * 2).max(needed.next_multiple_of(FIRST_SIZE));
            fill_zeros(file, size, grown, durable).map_err(io_err("growing commit log", &self.path))?;
        }
        failpoint::hit("publish.before_link")?;
        // Until this record is whole, the log's end is not clean. It is
        // written in two halves, so that a failpoint can tear it.
        self.tail = Tail::Torn;
        let (first, rest) = record.bytes.split_at(record.bytes.len() / 2);
        file.write_all_at(first, self.end).map_err(io_err("writing commit log", &self.path))?;
        failpoint::hit("log.mid_append")?;
        file.write_all_at(rest, self.end + first.len() as u64).map_err(io_err("writing commit log", &self.path))?;
        let file = match durable {
            true => Some((file.try_clone().map_err(io_err("opening commit log", &self.path))?, self.path.clone())),
            false => None,
        };
        self.push(record.entry);
        self.tail = Tail::Clean;
        Ok(Flush { file })
    }

    /// Flushes every record written to this log, by any process (before a
    /// new log begins, so that a version is never durable before the ones
    /// it follows; `fdatasync` needs no write access).
    pub(super) fn flush(&self) -> Result<()> {
        let file = self.writer.as_ref().unwrap_or(&self.file);
        file.sync_data().map_err(io_err("syncing commit log", &self.path))
    }
}

/// A record written but not yet flushed to the disk; [`Flush::wait`] makes
/// it durable. A commit waits after letting go of `commit.lock`, so that the
/// next committers write their records meanwhile and the flushes overlap
/// (group commit): `fdatasync` writes every page of the log written before
/// it, and waits for those another process's `fdatasync` is writing, so a
/// commit is durable when its wait returns, whoever wrote its pages.
#[derive(Debug)]
#[must_use = "a commit is durable only once its flush is waited for"]
pub struct Flush {
    file: Option<(File, PathBuf)>,
}

impl Flush {
    /// Nothing left to flush (a new log is flushed whole before it is linked).
    pub(super) fn done() -> Self {
        Self { file: None }
    }

    /// Waits until the record is on the disk.
    pub fn wait(self) -> Result<()> {
        let Some((file, path)) = self.file else { return Ok(()) };
        failpoint::hit("log.before_sync")?;
        file.sync_data().map_err(io_err("syncing commit log", &path))
    }
}

/// Writes zeros over `from..to` of `file` (sparse when not `durable`:
/// nothing syncs such a file, and a hole reads as zeros just the same).
fn fill_zeros(file: &File, from: u64, to: u64, durable: bool) -> io::Result<()> {
    if !durable {
        return file.set_len(to);
    }
    let mut at = from;
    while at < to {
        let n = (to - at).min(ZEROS.len() as u64) as usize;
        file.write_all_at(&ZEROS[..n], at)?;
        at += n as u64;
    }
    Ok(())
}
