//! Python scalar functions in SQL (`con.create_function`): a DataFusion
//! scalar UDF whose batches of arguments go to a Python callable as pyarrow
//! arrays and whose answer comes back as an Arrow array, both through the
//! Arrow C data interface (no values are copied on the way). Row-by-row
//! functions are wrapped into this shape by the Python layer.

use crate::arrow_py::{from_pyarrow, to_pyarrow};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::hash::{Hash, Hasher};
use swingdb::arrow::array::{Array, ArrayRef};
use swingdb::arrow::datatypes::DataType;
use swingdb::datafusion::common::{DataFusionError, Result as DFResult};
use swingdb::datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility};

/// A Python function callable from SQL.
#[derive(Debug)]
pub struct PythonFunction {
    name: String,
    /// Called with the number of rows and one pyarrow array per argument;
    /// answers an Arrow array.
    call: Py<PyAny>,
    signature: Signature,
    params: Vec<DataType>,
    returns: DataType,
}

impl PythonFunction {
    /// `call` as SQL function `name` taking `params` and returning `returns`;
    /// `volatile` if it may answer differently for the same arguments.
    pub fn new(name: String, call: Py<PyAny>, params: Vec<DataType>, returns: DataType, volatile: bool) -> Self {
        let volatility = if volatile { Volatility::Volatile } else { Volatility::Immutable };
        // Arguments are cast to the declared types (see coerce_types), as in DuckDB.
        Self { name, call, signature: Signature::user_defined(volatility), params, returns }
    }
}

impl PartialEq for PythonFunction {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.call.as_ptr() == other.call.as_ptr()
    }
}
impl Eq for PythonFunction {}
impl Hash for PythonFunction {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

fn failed(name: &str, what: impl std::fmt::Display) -> DataFusionError {
    let err =
        swingdb::Error::new(swingdb::ErrorKind::Operational, format!("the Python function {name}() failed: {what}"));
    DataFusionError::External(Box::new(err))
}

impl ScalarUDFImpl for PythonFunction {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> DFResult<Vec<DataType>> {
        if arg_types.len() != self.params.len() {
            return Err(DataFusionError::Plan(format!(
                "{}() takes {} argument{}, got {}",
                self.name,
                self.params.len(),
                if self.params.len() == 1 { "" } else { "s" },
                arg_types.len()
            )));
        }
        Ok(self.params.clone())
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(self.returns.clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = args.args.iter().map(|a| a.to_array(rows)).collect::<DFResult<Vec<_>>>()?;
        let answer = Python::attach(|py| -> PyResult<ArrayRef> {
            let inputs = arrays.iter().map(|a| to_pyarrow(py, a)).collect::<PyResult<Vec<_>>>()?;
            let mut call_args = vec![rows.into_pyobject(py)?.into_any()];
            call_args.extend(inputs);
            let answer = self.call.bind(py).call1(PyTuple::new(py, call_args)?)?;
            from_pyarrow(&answer)
        });
        let answer = answer.map_err(|e| {
            let text = Python::attach(|py| {
                let kind = e.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".into());
                format!("{kind}: {}", e.value(py))
            });
            failed(&self.name, text)
        })?;
        if answer.len() != rows {
            return Err(failed(&self.name, format!("it answered {} values for {rows} rows", answer.len())));
        }
        if answer.data_type() != &self.returns {
            return Err(failed(
                &self.name,
                format!("it answered {} values, declared {}", answer.data_type(), self.returns),
            ));
        }
        Ok(ColumnarValue::Array(answer))
    }
}
