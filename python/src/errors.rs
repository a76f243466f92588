//! The DB-API exceptions, and how core errors, panics and Ctrl-C become them.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use swingdb::ErrorKind;

create_exception!(_swingdb, Warning, PyException, "DB-API Warning.");
create_exception!(_swingdb, Error, PyException, "Base class of all swingdb errors (DB-API Error).");
create_exception!(_swingdb, InterfaceError, Error, "Misuse of the swingdb interface.");
create_exception!(_swingdb, DatabaseError, Error, "An error of the database.");
create_exception!(
    _swingdb,
    DataError,
    DatabaseError,
    "A value does not fit (wrong type, out of range, division by zero)."
);
create_exception!(
    _swingdb,
    OperationalError,
    DatabaseError,
    "The database could not do what was asked (I/O, read-only, missing file)."
);
create_exception!(
    _swingdb,
    IntegrityError,
    DatabaseError,
    "A constraint was violated (e.g. NULL into a NOT NULL column)."
);
create_exception!(_swingdb, InternalError, DatabaseError, "A bug in swingdb; please report it.");
create_exception!(
    _swingdb,
    ProgrammingError,
    DatabaseError,
    "Bad SQL or API use: syntax error, unknown table or column."
);
create_exception!(_swingdb, NotSupportedError, DatabaseError, "Valid SQL that swingdb does not support yet.");
create_exception!(
    _swingdb,
    ConflictError,
    OperationalError,
    "Another transaction committed a conflicting change first; retry."
);
create_exception!(_swingdb, CorruptionError, DatabaseError, "A stored file is damaged; the message names it.");
create_exception!(
    _swingdb,
    InterruptError,
    OperationalError,
    "The statement was cancelled by `interrupt()`; nothing it did was kept."
);

thread_local! {
    /// The exception a signal handler raised (KeyboardInterrupt for Ctrl-C)
    /// while this thread's statement ran: the statement is cancelled and this
    /// is what Python sees instead of `InterruptError`.
    static SIGNALLED: std::cell::RefCell<Option<PyErr>> = const { std::cell::RefCell::new(None) };
}

/// The engine's signal check: runs Python's signal handlers (only the main
/// thread has any, so other threads answer at once without taking the GIL).
/// An exception one raises cancels the running statement and is kept to be
/// raised in its place.
pub(crate) fn check_python_signals() -> bool {
    // SAFETY: plain system calls without arguments.
    if unsafe { libc::gettid() != libc::getpid() } {
        return false;
    }
    Python::attach(|py| match py.check_signals() {
        Ok(()) => false,
        Err(raised) => {
            SIGNALLED.with(|s| *s.borrow_mut() = Some(raised));
            true
        }
    })
}

pub(crate) fn to_py(err: swingdb::Error) -> PyErr {
    let msg = err.message().to_string();
    match err.kind() {
        ErrorKind::Programming => ProgrammingError::new_err(msg),
        ErrorKind::Data => DataError::new_err(msg),
        ErrorKind::Integrity => IntegrityError::new_err(msg),
        ErrorKind::Operational => OperationalError::new_err(msg),
        ErrorKind::Conflict => ConflictError::new_err(msg),
        ErrorKind::Corruption => CorruptionError::new_err(msg),
        ErrorKind::NotSupported => NotSupportedError::new_err(msg),
        ErrorKind::Internal => InternalError::new_err(msg),
        ErrorKind::Interrupted => {
            SIGNALLED.with(|s| s.borrow_mut().take()).unwrap_or_else(|| InterruptError::new_err(msg))
        }
    }
}

/// Runs `f`, turning core errors into Python exceptions and a panic (a bug)
/// into `InternalError` instead of unwinding into Python. Call it without the GIL.
pub(crate) fn guarded<T>(f: impl FnOnce() -> swingdb::Result<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py),
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(InternalError::new_err(format!("internal error (please report): {what}")))
        }
    }
}

/// [`guarded`], with the GIL released while the engine works.
pub(crate) fn engine<T: Send>(py: Python<'_>, f: impl FnOnce() -> swingdb::Result<T> + Send) -> PyResult<T> {
    py.detach(|| guarded(f))
}
