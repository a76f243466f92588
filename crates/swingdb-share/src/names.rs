//! Snapshot names: `<runtime home>/names/<name>` is a symbolic link to the
//! snapshot directory the name stands for, wherever that is (the runtime
//! home, or a database directory on disk).
//!
//! Creating, replacing and removing a name happens under `names.lock`
//! (flock, exclusive), so "remove this name if it still points at X" is
//! atomic against "point this name at Y". Resolving a name takes no lock: a
//! link is created and renamed into place whole, so a reader sees the old
//! target or the new one. A name is linked only after its snapshot directory
//! is complete, so whoever resolves a name finds a whole snapshot or (if it
//! was discarded meanwhile) none.

use super::home::Home;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::Duration;
use swingdb_storage::dir::files::{
    ensure_private_dir, flock_exclusive_within, io_err, open_lock_file, random_id, try_flock,
};
use swingdb_storage::{Error, Result};

const NAMES: &str = "names";
const NAMES_LOCK: &str = "names.lock";

/// Longest snapshot name, in bytes.
pub const MAX_NAME_LEN: usize = 128;

/// How long a change of names waits for another process's change.
const LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// Refuses snapshot names that are not usable as one file name of their own.
pub fn validate(name: &str) -> Result<()> {
    validate_as("snapshot", name)
}

/// Refuses names of `what` (snapshots, pipes) that are not usable as one file name of their own.
pub fn validate_as(what: &str, name: &str) -> Result<()> {
    let problem = if name.is_empty() {
        Some("is empty")
    } else if name.len() > MAX_NAME_LEN {
        Some("is longer than 128 bytes")
    } else if name.contains('/') {
        Some("contains '/'")
    } else if name.contains('\0') {
        Some("contains a NUL character")
    } else if name.starts_with('.') {
        Some("starts with '.'")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(why) => Err(Error::programming(format!(
            "{what} name {name:?} {why}; use letters, digits, '_', '-' and '.' (not first), at most {MAX_NAME_LEN} bytes"
        ))),
    }
}

/// The names directory of a runtime home.
#[derive(Debug, Clone)]
pub struct Names {
    dir: PathBuf,
    lock_path: PathBuf,
}

/// Proof that `names.lock` is held.
#[derive(Debug)]
pub struct NamesGuard {
    _file: File,
}

impl Names {
    /// The names of `runtime` (created if missing).
    pub fn of(runtime: &Home) -> Result<Self> {
        let dir = runtime.root().join(NAMES);
        ensure_private_dir(&dir)?;
        Ok(Self { dir, lock_path: runtime.root().join(NAMES_LOCK) })
    }

    /// Takes `names.lock`.
    pub fn lock(&self) -> Result<NamesGuard> {
        let file = open_lock_file(&self.lock_path)?
            .ok_or_else(|| Error::operational(format!("cannot create {}", self.lock_path.display())))?;
        if !flock_exclusive_within(&file, LOCK_TIMEOUT).map_err(io_err("locking", &self.lock_path))? {
            return Err(Error::operational(format!(
                "another process has held {} for {} s; no snapshot name was changed",
                self.lock_path.display(),
                LOCK_TIMEOUT.as_secs()
            )));
        }
        Ok(NamesGuard { _file: file })
    }

    /// Takes `names.lock` if nobody holds it.
    pub fn try_lock(&self) -> Option<NamesGuard> {
        let file = open_lock_file(&self.lock_path).ok()??;
        try_flock(&file, libc::LOCK_EX).ok()?.then_some(NamesGuard { _file: file })
    }

    /// The snapshot directory `name` points at, `None` if the name does not
    /// exist. Any other failure to read the link (no free descriptors, a
    /// damaged entry) is an error, never taken for "no such name".
    pub fn resolve(&self, name: &str) -> Result<Option<PathBuf>> {
        let path = self.dir.join(name);
        match fs::read_link(&path) {
            Ok(target) => Ok(Some(target)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(format!("reading snapshot name {}", path.display()), e)),
        }
    }

    /// Every name and the directory it points at, sorted by name: all of
    /// them or an error (a sweep concludes from this list that a directory
    /// no name points at is unnamed, so a partial list must never be returned).
    pub fn list(&self) -> Result<Vec<(String, PathBuf)>> {
        let reading = io_err("listing snapshot names in", &self.dir);
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.dir).map_err(reading)? {
            let entry = entry.map_err(io_err("listing snapshot names in", &self.dir))?;
            let Ok(name) = entry.file_name().into_string() else { continue };
            if name.starts_with('.') {
                continue; // a link being renamed into place
            }
            // Removed between the listing and here (by a discard): not a name any more.
            if let Some(target) = self.resolve(&name)? {
                names.push((name, target));
            }
        }
        names.sort();
        Ok(names)
    }

    /// Points `name` at `target`, replacing what it pointed at (returned).
    pub fn point(&self, _guard: &NamesGuard, name: &str, target: &Path) -> Result<Option<PathBuf>> {
        let old = self.resolve(name)?;
        let tmp = self.dir.join(format!(".{}", random_id()));
        std::os::unix::fs::symlink(target, &tmp).map_err(io_err("creating snapshot name", &tmp))?;
        let path = self.dir.join(name);
        if let Err(e) = fs::rename(&tmp, &path) {
            let _ = fs::remove_file(&tmp);
            return Err(Error::io(format!("naming snapshot {}", path.display()), e));
        }
        Ok(old)
    }

    /// Removes `name` if it points at `target`; returns whether it did.
    pub fn remove_if(&self, _guard: &NamesGuard, name: &str, target: &Path) -> bool {
        self.resolve(name).is_ok_and(|t| t.as_deref() == Some(target)) && fs::remove_file(self.dir.join(name)).is_ok()
    }

    /// Removes links left half made by a process that died while renaming one into place.
    pub fn sweep_temporary(&self, _guard: &NamesGuard) {
        let Ok(entries) = fs::read_dir(&self.dir) else { return };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with('.') {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_validated() {
        for bad in ["", "a/b", "..", ".hidden", "nul\0", "tab\there", &"x".repeat(129)] {
            let err = validate(bad).unwrap_err();
            assert!(err.message().contains("snapshot name"), "{bad:?}: {}", err.message());
        }
        for good in ["sales", "stage-2.clean", "données", &"x".repeat(128)] {
            validate(good).unwrap();
        }
    }
}
