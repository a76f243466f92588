//! The functions `nextval('s')` and `currval('s')` of a connection (see
//! `storage::sequence` for how values are handed out once across processes).

use crate::catalog::Tables;
use datafusion::arrow::array::Int64Array;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{plan_err, Result as DFResult, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use swingdb_storage::error::Error;
use swingdb_storage::DbDir;
use swingdb_storage::Sequence;

/// The last value `nextval` gave in this connection, by sequence name.
type LastValues = Arc<Mutex<HashMap<String, i64>>>;

/// `nextval('s')` and `currval('s')` of a connection whose catalog is
/// `tables`, known as schema `own`, in the database `dir`.
pub fn functions(own: &str, tables: Tables, dir: Arc<DbDir>) -> [ScalarUDF; 2] {
    let last = LastValues::default();
    let own = own.to_string();
    let next = SequenceFunction {
        next: true,
        own: own.clone(),
        tables: tables.clone(),
        dir: dir.clone(),
        last: last.clone(),
        signature: signature(),
    };
    let current = SequenceFunction { next: false, own, tables, dir, last, signature: signature() };
    [ScalarUDF::new_from_impl(next), ScalarUDF::new_from_impl(current)]
}

fn signature() -> Signature {
    Signature::exact(vec![DataType::Utf8], Volatility::Volatile)
}

/// `nextval` or `currval`.
#[derive(Debug)]
struct SequenceFunction {
    next: bool,
    own: String,
    tables: Tables,
    dir: Arc<DbDir>,
    last: LastValues,
    signature: Signature,
}

impl PartialEq for SequenceFunction {
    fn eq(&self, other: &Self) -> bool {
        self.next == other.next && Arc::ptr_eq(&self.last, &other.last)
    }
}

impl Eq for SequenceFunction {}

impl std::hash::Hash for SequenceFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.next, Arc::as_ptr(&self.last)).hash(state)
    }
}

impl SequenceFunction {
    /// The catalog name of the sequence `written` names (`'s'`, `'main.s'`,
    /// `'"S"'`; unquoted names fold to lower case as in SQL) and the sequence.
    fn find(&self, written: &str) -> DFResult<(String, Sequence)> {
        let parts: Vec<&str> = written.split('.').map(str::trim).collect();
        // `o.s` names a sequence of database `o`: never this one's `s`.
        if let [.., schema, _] = parts.as_slice() {
            if !schema.trim_matches('"').eq_ignore_ascii_case(&self.own) {
                return plan_err!(
                    "{}('{written}'): only sequences of this connection's own database ({}) can be used",
                    self.name(),
                    self.own
                );
            }
        }
        let last = parts.last().copied().unwrap_or(written);
        let name = match last.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
            Some(quoted) => quoted.to_string(),
            None => last.to_string(),
        };
        let tables = self.tables.lock();
        let found =
            [name.clone(), name.to_lowercase()].into_iter().find_map(|n| Some((n.clone(), tables.get(&n)?.clone())));
        match found {
            Some((n, meta)) => match meta.as_sequence() {
                Some(sequence) => Ok((n, sequence.clone())),
                None => plan_err!("'{n}' is a {}, not a sequence", meta.kind()),
            },
            None => plan_err!("sequence '{written}' does not exist (CREATE SEQUENCE {name} makes one)"),
        }
    }
}

impl ScalarUDFImpl for SequenceFunction {
    fn name(&self) -> &str {
        if self.next {
            "nextval"
        } else {
            "currval"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        Ok(DataType::Int64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let written = match args.args.first() {
            Some(ColumnarValue::Scalar(ScalarValue::Utf8(Some(s)))) => s.clone(),
            _ => {
                let message = format!("{}() takes the name of a sequence, as a constant string", self.name());
                return Err(Error::programming(message).into());
            }
        };
        let (name, sequence) = self.find(&written)?;
        if !self.next {
            return match self.last.lock().get(&name) {
                Some(&value) => Ok(ColumnarValue::Scalar(ScalarValue::Int64(Some(value)))),
                None => {
                    let message =
                        format!("currval('{written}'): nextval was not called for the sequence in this connection yet");
                    Err(Error::programming(message).into())
                }
            };
        }
        self.dir.refuse_read_only().map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        let values = sequence
            .take(&name, &self.dir.segment_path(&sequence.file), args.number_rows)
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        if let Some(&last) = values.last() {
            self.last.lock().insert(name, last);
        }
        Ok(ColumnarValue::Array(Arc::new(Int64Array::from(values))))
    }
}
