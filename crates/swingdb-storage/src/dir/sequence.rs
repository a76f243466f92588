//! Sequences (`CREATE SEQUENCE`, `nextval`): counters that hand out each
//! value once, to every transaction and process of a database.
//!
//! A sequence is a catalog entry (its options, transactional like any DDL)
//! plus a small counter file, `segments/<lease>-<n>.seq`, that holds the next
//! value. Taking values is not transactional, as in PostgreSQL: a value
//! taken by a transaction that rolls back is not handed out again, so
//! writers that share a sequence never conflict over it. A statement takes
//! the values of a whole batch of rows at once (one lock and one fsync per
//! batch, not per row).
//!
//! # Which interleavings between processes are possible, and why each is safe
//!
//! **Two takers.** Each takes the counter file's `flock` exclusively, reads
//! the next value, writes the value after its own and `fdatasync`s before it
//! lets go and before it returns a value. So the read-modify-write sections
//! never overlap, in one process or many (a `flock` belongs to an open file
//! description: two connections of one process exclude each other too), and
//! no two takers ever get the same value.
//!
//! **A taker that dies.** Killed before its write: nothing was taken, the next
//! taker gets the same values, which nobody saw. Killed after it: the values
//! are gone (a gap), never handed out again. The lock dies with the process.
//! The machine losing power before the `fdatasync` finished: the values were
//! not returned yet, so taking them again is safe; after it, they are on disk.
//!
//! **A torn write.** The state is 24 bytes at offset 0, inside one sector,
//! and carries a CRC-32: a write torn anyway is reported as a damaged counter
//! naming the file, never read as a smaller value that would be handed out
//! twice. A missing counter is reported too, never re-created from the start.
//!
//! **Creation and removal follow segment files.** The creating transaction
//! writes and syncs the file under a name drawn from its lease (never used
//! by anyone else, see `storage::dir`) before its manifest names it; a
//! rollback deletes it, the garbage collector removes it once its lease is
//! dead and no kept manifest names it (`Manifest::segment_files` lists it).
//! A transaction still reading a version with the sequence pins that version,
//! so the file outlives a DROP SEQUENCE committed meanwhile until it is done.
//!
//! **Snapshots copy the counter** (under its lock) instead of linking it as
//! they link segment files, which never change: a snapshot's sequence goes on
//! from the value it had when shared, without taking its source's values.

use crate::dir::files::{create_private_file, flock_exclusive_within, io_err};
use crate::error::{Error, Result};
use crate::failpoint;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

/// How long a taker waits for another one before it gives up.
const LOCK_TIMEOUT: Duration = Duration::from_secs(60);

/// The first bytes of a counter file (the format's version is the last).
const MAGIC: &[u8; 8] = b"swseq\0\0\x01";

/// Size of a counter file: magic, next value, flags, CRC-32.
const STATE_BYTES: usize = 24;

/// A sequence's options (as DuckDB and PostgreSQL name them) and counter file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sequence {
    /// The counter file's name in `segments/`.
    pub file: String,
    /// The first value.
    pub start: i64,
    /// Added for each value (never 0).
    pub increment: i64,
    /// The smallest value.
    pub min: i64,
    /// The largest value.
    pub max: i64,
    /// Whether it starts again at `min` (`max` when counting down) past the end.
    pub cycle: bool,
}

/// What a counter file holds: the value the next taker gets, unless the
/// sequence ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct State {
    next: i64,
    exhausted: bool,
}

impl State {
    fn encode(self) -> [u8; STATE_BYTES] {
        let mut bytes = [0u8; STATE_BYTES];
        bytes[..8].copy_from_slice(MAGIC);
        bytes[8..16].copy_from_slice(&self.next.to_le_bytes());
        bytes[16..20].copy_from_slice(&u32::from(self.exhausted).to_le_bytes());
        let crc = crc32fast::hash(&bytes[..20]);
        bytes[20..].copy_from_slice(&crc.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let damaged = || {
            Error::corruption(format!(
                "sequence counter {} is damaged; its values cannot be handed out safely",
                path.display()
            ))
        };
        if bytes.len() != STATE_BYTES || &bytes[..8] != MAGIC {
            return Err(damaged());
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        if crc32fast::hash(&bytes[..20]) != word(20) || word(16) > 1 {
            return Err(damaged());
        }
        Ok(Self { next: i64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")), exhausted: word(16) == 1 })
    }
}

impl Sequence {
    /// A sequence with DuckDB's defaults for the options not given: counting
    /// up by 1 from 1 to `i64::MAX`, or down from -1 to `i64::MIN`. `name`
    /// is for messages; `file` is set when its counter is created.
    pub fn new(
        name: &str,
        increment: Option<i64>,
        min: Option<i64>,
        max: Option<i64>,
        start: Option<i64>,
        cycle: bool,
    ) -> Result<Self> {
        let increment = increment.unwrap_or(1);
        let up = increment > 0;
        let min = min.unwrap_or(if up { 1 } else { i64::MIN });
        let max = max.unwrap_or(if up { i64::MAX } else { -1 });
        let start = start.unwrap_or(if up { min } else { max });
        let sequence = Self { file: String::new(), start, increment, min, max, cycle };
        match sequence.problem() {
            Some(problem) => Err(Error::programming(format!("sequence '{name}': {problem}"))),
            None => Ok(sequence),
        }
    }

    /// What makes these options no sequence, if anything: they come from
    /// the user, and again from a manifest that may have been tampered
    /// with (an INCREMENT of 0 would hand out one value for ever).
    pub fn problem(&self) -> Option<String> {
        let (min, max, start) = (self.min, self.max, self.start);
        if self.increment == 0 {
            Some("INCREMENT must not be 0".to_string())
        } else if min > max {
            Some(format!("MINVALUE ({min}) must not be greater than MAXVALUE ({max})"))
        } else if !(min..=max).contains(&start) {
            Some(format!("START value ({start}) must lie between MINVALUE ({min}) and MAXVALUE ({max})"))
        } else {
            None
        }
    }

    /// The `CREATE SEQUENCE` statement that makes `name` as this sequence,
    /// starting at `next`.
    pub fn sql(&self, name: &str, next: i64) -> String {
        let cycle = if self.cycle { " CYCLE" } else { "" };
        format!(
            "CREATE SEQUENCE {name} INCREMENT BY {} MINVALUE {} MAXVALUE {} START WITH {}{cycle}",
            self.increment, self.min, self.max, next
        )
    }

    /// The value after `value`, and whether there is one.
    fn after(&self, value: i64) -> Option<i64> {
        match value.checked_add(self.increment) {
            Some(next) if (self.min..=self.max).contains(&next) => Some(next),
            _ if self.cycle => Some(if self.increment > 0 { self.min } else { self.max }),
            _ => None,
        }
    }

    /// Writes this sequence's counter at `path`, a new file (synced; the
    /// caller syncs the directory before a manifest names it).
    pub fn create_counter(&self, path: &Path) -> Result<()> {
        let state = State { next: self.start, exhausted: false };
        let mut file = create_private_file(path).map_err(io_err("creating sequence counter", path))?;
        file.write_all(&state.encode()).and_then(|_| file.sync_data()).map_err(io_err("writing sequence counter", path))
    }

    /// Takes the next `n` values of the sequence `name` from its counter at
    /// `path` (see the module documentation for why no value is given twice).
    pub fn take(&self, name: &str, path: &Path, n: usize) -> Result<Vec<i64>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let file = self.lock_counter(path)?;
        let mut state = self.read_state(&file, path)?;
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            if state.exhausted {
                let (end, bound) = if self.increment > 0 { ("maximum", self.max) } else { ("minimum", self.min) };
                return Err(Error::data(format!(
                    "sequence '{name}' reached its {end} value ({bound}); nothing was taken. \
                     Create it with CYCLE to start over, or with a larger range"
                )));
            }
            values.push(state.next);
            match self.after(state.next) {
                Some(next) => state.next = next,
                None => state.exhausted = true,
            }
        }
        failpoint::hit("sequence.before_write")?;
        file.write_all_at(&state.encode(), 0)
            .and_then(|_| file.sync_data())
            .map_err(io_err("writing sequence counter", path))?;
        failpoint::hit("sequence.after_sync")?;
        Ok(values)
    }

    /// The value the next taker would get (`None`: the sequence ran out).
    pub fn peek(&self, path: &Path) -> Result<Option<i64>> {
        let file = self.lock_counter(path)?;
        let state = self.read_state(&file, path)?;
        Ok((!state.exhausted).then_some(state.next))
    }

    /// Copies the counter at `from` to the new file `to`, as it is now.
    pub fn copy_counter(&self, from: &Path, to: &Path) -> Result<()> {
        let file = self.lock_counter(from)?;
        let state = self.read_state(&file, from)?;
        let mut copy = create_private_file(to).map_err(io_err("creating sequence counter", to))?;
        copy.write_all(&state.encode()).and_then(|_| copy.sync_data()).map_err(io_err("writing sequence counter", to))
    }

    /// The counter's state; a next value outside the sequence's range is
    /// damage too (a whole, checksummed file written by someone else).
    fn read_state(&self, file: &File, path: &Path) -> Result<State> {
        let mut bytes = vec![0u8; STATE_BYTES + 1];
        let read = file.read_at(&mut bytes, 0).map_err(io_err("reading sequence counter", path))?;
        let state = State::decode(&bytes[..read], path)?;
        if !state.exhausted && !(self.min..=self.max).contains(&state.next) {
            return Err(Error::corruption(format!(
                "sequence counter {} is damaged: its next value {} lies outside {}..={}",
                path.display(),
                state.next,
                self.min,
                self.max
            )));
        }
        Ok(state)
    }

    fn lock_counter(&self, path: &Path) -> Result<File> {
        let file = OpenOptions::new().read(true).write(true).open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                Error::corruption(format!("sequence counter {} is missing", path.display()))
            }
            _ => Error::io(format!("opening sequence counter {}", path.display()), e),
        })?;
        if !flock_exclusive_within(&file, LOCK_TIMEOUT).map_err(io_err("locking sequence counter", path))? {
            return Err(Error::operational(format!(
                "sequence counter {} stayed locked for {} s by another process",
                path.display(),
                LOCK_TIMEOUT.as_secs()
            )));
        }
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_count_by_the_increment_stop_or_cycle_at_the_bounds() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.seq");
        let s = Sequence::new("s", Some(3), Some(1), Some(10), Some(2), false).unwrap();
        s.create_counter(&path).unwrap();
        assert_eq!(s.take("s", &path, 2).unwrap(), vec![2, 5]);
        assert_eq!(s.peek(&path).unwrap(), Some(8));
        assert_eq!(s.take("s", &path, 1).unwrap(), vec![8]);
        // 11 is past the end: a batch asking for two fails whole.
        let e = s.take("s", &path, 2).unwrap_err();
        assert!(e.to_string().contains("reached its maximum value (10)"), "{e}");
        assert_eq!(s.peek(&path).unwrap(), None);

        let path = tmp.path().join("c.seq");
        let c = Sequence::new("c", Some(-2), Some(-3), Some(3), None, true).unwrap();
        c.create_counter(&path).unwrap();
        assert_eq!(c.take("c", &path, 6).unwrap(), vec![3, 1, -1, -3, 3, 1]);
        assert!(Sequence::new("z", Some(0), None, None, None, false).is_err());
        assert!(Sequence::new("z", None, Some(5), Some(9), Some(1), false).is_err());
    }

    #[test]
    fn a_damaged_or_missing_counter_is_an_error_never_a_restart() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.seq");
        let s = Sequence::new("s", None, None, None, None, false).unwrap();
        s.create_counter(&path).unwrap();
        assert_eq!(s.take("s", &path, 3).unwrap(), vec![1, 2, 3]);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[9] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = s.take("s", &path, 1).unwrap_err();
        assert!(e.to_string().contains("is damaged"), "{e}");
        std::fs::write(&path, &bytes[..10]).unwrap();
        assert!(s.take("s", &path, 1).unwrap_err().to_string().contains("is damaged"));
        std::fs::remove_file(&path).unwrap();
        assert!(s.take("s", &path, 1).unwrap_err().to_string().contains("is missing"));
        // A whole counter of another sequence: its next value is out of this one's range.
        let wide = Sequence::new("w", None, None, None, Some(500), false).unwrap();
        wide.create_counter(&path).unwrap();
        let narrow = Sequence::new("n", None, None, Some(10), None, false).unwrap();
        let e = narrow.take("n", &path, 1).unwrap_err();
        assert!(e.to_string().contains("next value 500 lies outside 1..=10"), "{e}");
    }

    #[test]
    fn takers_on_many_threads_never_get_one_value_twice() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.seq");
        let s = Sequence::new("s", None, None, None, None, false).unwrap();
        s.create_counter(&path).unwrap();
        let mut all: Vec<i64> = std::thread::scope(|scope| {
            let takers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| (0..50).flat_map(|k| s.take("s", &path, k % 3 + 1).unwrap()).collect::<Vec<_>>())
                })
                .collect();
            takers.into_iter().flat_map(|t| t.join().unwrap()).collect()
        });
        all.sort_unstable();
        let expected: Vec<i64> = (1..=all.len() as i64).collect();
        assert_eq!(all, expected, "every value once, none skipped");
    }
}
