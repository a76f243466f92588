//! swingdb's C interface (`include/swingdb.h`): databases, connections,
//! statements with parameters, results as columns whose buffers are the
//! engine's own, and columns in from a caller's memory. A thin face over the
//! core's public API; the R package links it as a static library.
//!
//! Every entry point catches panics (a bug reported as `SWINGDB_INTERNAL`,
//! never an unwind into C) and reports failures through `swingdb_error`.

#![allow(non_camel_case_types)]

mod columns;
mod handles;
mod input;
mod values;

pub use columns::{swingdb_chunk, swingdb_column};
pub use handles::{swingdb_connection, swingdb_database, swingdb_result};
pub use input::swingdb_input_column;
pub use values::swingdb_value;

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use swingdb::{Error, ErrorKind};

/// A failure as C sees it: its kind (the core's [`ErrorKind`], 0 for none)
/// and a message the caller frees with [`swingdb_error_clear`].
#[repr(C)]
pub struct swingdb_error {
    kind: i32,
    message: *mut c_char,
}

fn kind_code(kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::Programming => 1,
        ErrorKind::Data => 2,
        ErrorKind::Integrity => 3,
        ErrorKind::Operational => 4,
        ErrorKind::Conflict => 5,
        ErrorKind::Corruption => 6,
        ErrorKind::NotSupported => 7,
        ErrorKind::Internal => 8,
        ErrorKind::Interrupted => 9,
    }
}

/// Fills `out` (if the caller gave one) with `err`.
fn report(out: *mut swingdb_error, err: &Error) {
    if out.is_null() {
        return;
    }
    let message = CString::new(err.message().replace('\0', " ")).unwrap_or_default();
    // SAFETY: the caller passes a valid, writable swingdb_error (or NULL, checked above).
    unsafe {
        swingdb_error_clear(out);
        (*out).kind = kind_code(err.kind());
        (*out).message = message.into_raw();
    }
}

/// Runs `f`, turning its error or panic into `fallback` and a filled `error`.
fn guarded<T>(error: *mut swingdb_error, fallback: T, f: impl FnOnce() -> swingdb::Result<T>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => value,
        Ok(Err(err)) => {
            report(error, &err);
            fallback
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            report(error, &Error::internal(format!("swingdb bug (please report it): {what}")));
            fallback
        }
    }
}

/// Frees an error's message and marks it as no error.
///
/// # Safety
/// `error` is NULL or a swingdb_error this library filled (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn swingdb_error_clear(error: *mut swingdb_error) {
    if error.is_null() {
        return;
    }
    // SAFETY: per the contract, a message here was made by CString::into_raw.
    unsafe {
        if !(*error).message.is_null() {
            drop(CString::from_raw((*error).message));
        }
        (*error).message = std::ptr::null_mut();
        (*error).kind = 0;
    }
}

/// A C string argument as UTF-8, or a ProgrammingError naming `what`.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string that outlives the returned slice.
unsafe fn text<'a>(s: *const c_char, what: &str) -> swingdb::Result<&'a str> {
    if s.is_null() {
        return Err(Error::programming(format!("{what} is missing (NULL)")));
    }
    // SAFETY: per the contract.
    unsafe { std::ffi::CStr::from_ptr(s) }
        .to_str()
        .map_err(|_| Error::programming(format!("{what} is not valid UTF-8")))
}
