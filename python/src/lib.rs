//! `swingdb._swingdb`: the Python extension module. A thin face over the core:
//! it converts arguments, maps errors onto the DB-API exceptions, releases the
//! GIL while the engine works, and hands results on without copying their
//! buffers: to numpy through its array interface, to pyarrow, polars and pandas
//! through the Arrow C stream interface (`__arrow_c_stream__`). Python rows are
//! made here too, so reading a result needs no Python package.

mod arrow_py;
mod column;
mod connection;
mod errors;
mod params;
mod pipe;
mod result;
mod snapshot;
mod udf;
mod values;

/// mimalloc, large allocations on huge pages (see `swingdb_storage::allocator`).
#[global_allocator]
static ALLOCATOR: swingdb_storage::allocator::Allocator = swingdb_storage::allocator::Allocator;

use pyo3::prelude::*;

use crate::connection::{PyConnection, PyDatabase};
use crate::errors::{
    check_python_signals, guarded, ConflictError, CorruptionError, DataError, DatabaseError, Error, IntegrityError,
    InterfaceError, InternalError, InterruptError, NotSupportedError, OperationalError, ProgrammingError, Warning,
};
use crate::pipe::{pipe_reader, pipes_waiting, PyPipeWriter};
use crate::result::{Batches, PyResult_};
use crate::snapshot::{discard, snapshots};

/// The segment file mapped at `address`, as `(fd, offset)` with a new file
/// descriptor the caller must close, or None if no stored segment is mapped there.
#[pyfunction]
fn mapped_file(address: usize) -> Option<(i32, u64)> {
    use std::os::fd::IntoRawFd;
    swingdb_storage::locate_mapped(address).map(|(file, offset)| (file.into_raw_fd(), offset))
}

/// Runs the `swingdb` shell with the command line `argv` (the program's name
/// first) and returns its exit code: the `swingdb` command the package
/// installs, the same code as the shell program built from swingdb-cli.
#[pyfunction]
fn shell(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| swingdb_cli::run(argv))
}

/// Sets the memory this process's queries may reserve ('2GB', 'none'; see
/// `swingdb::set_memory_limit`).
#[pyfunction]
fn set_memory_limit(limit: &str) -> PyResult<()> {
    guarded(|| swingdb::set_memory_limit(limit))
}

/// Sets the directory this process's queries spill to.
#[pyfunction]
fn set_temp_directory(path: &str) -> PyResult<()> {
    guarded(|| swingdb::set_temp_directory(path))
}

#[pymodule]
fn _swingdb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    swingdb::set_signal_check(Box::new(check_python_signals));
    m.add_class::<PyDatabase>()?;
    m.add_class::<PyConnection>()?;
    m.add_class::<PyResult_>()?;
    m.add_class::<Batches>()?;
    m.add_class::<column::PyColumn>()?;
    m.add_class::<column::ArrowBuffer>()?;
    m.add_function(wrap_pyfunction!(mapped_file, m)?)?;
    m.add_function(wrap_pyfunction!(shell, m)?)?;
    m.add_function(wrap_pyfunction!(snapshots, m)?)?;
    m.add_function(wrap_pyfunction!(discard, m)?)?;
    m.add_function(wrap_pyfunction!(pipe_reader, m)?)?;
    m.add_function(wrap_pyfunction!(pipes_waiting, m)?)?;
    m.add_function(wrap_pyfunction!(set_memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(set_temp_directory, m)?)?;
    m.add_class::<PyPipeWriter>()?;
    // Whether the linker placed the code of a first use together (see build.rs).
    m.add("_hot_code_first", env!("SWINGDB_HOT_CODE_FIRST") == "true")?;
    // The package's version (maturin takes it from this crate): read here, not
    // through importlib.metadata, which cost `import swingdb` 35 ms.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    for (name, ty) in [
        ("Warning", py.get_type::<Warning>()),
        ("Error", py.get_type::<Error>()),
        ("InterfaceError", py.get_type::<InterfaceError>()),
        ("DatabaseError", py.get_type::<DatabaseError>()),
        ("DataError", py.get_type::<DataError>()),
        ("OperationalError", py.get_type::<OperationalError>()),
        ("IntegrityError", py.get_type::<IntegrityError>()),
        ("InternalError", py.get_type::<InternalError>()),
        ("ProgrammingError", py.get_type::<ProgrammingError>()),
        ("NotSupportedError", py.get_type::<NotSupportedError>()),
        ("ConflictError", py.get_type::<ConflictError>()),
        ("CorruptionError", py.get_type::<CorruptionError>()),
        ("InterruptError", py.get_type::<InterruptError>()),
    ] {
        m.add(name, ty)?;
    }
    Ok(())
}
