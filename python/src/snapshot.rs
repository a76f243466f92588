//! Snapshots shared between processes: attach, list, discard.

use crate::errors::engine;
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(crate) fn snapshot_dict<'py>(py: Python<'py>, info: &swingdb::SnapshotInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &info.name)?;
    d.set_item("path", info.path.display().to_string())?;
    d.set_item("persist", info.persist)?;
    d.set_item("pid", info.pid)?;
    d.set_item("source", &info.source)?;
    d.set_item("tables", info.tables.clone())?;
    d.set_item("rows", info.rows)?;
    d.set_item("bytes", info.bytes)?;
    d.set_item("created", info.created)?;
    d.set_item("attached", info.attached)?;
    d.set_item("damaged", &info.damaged)?;
    Ok(d)
}

/// The snapshots of this user that can be attached.
#[pyfunction]
pub(crate) fn snapshots(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let list = engine(py, swingdb::Database::snapshots)?;
    list.iter().map(|info| snapshot_dict(py, info)).collect()
}

/// Removes snapshot `name`; databases attached from it keep what they have.
#[pyfunction]
pub(crate) fn discard(py: Python<'_>, name: String) -> PyResult<()> {
    engine(py, || swingdb::Database::discard(&name))
}
