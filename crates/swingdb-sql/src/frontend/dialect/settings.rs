//! Settings as DuckDB and PostgreSQL users name them, and bounds that keep a
//! session usable whatever is set.
//!
//! - `SET threads = 4` (also `worker_threads`, and `SHOW threads`,
//!   `current_setting('threads')`) is DataFusion's
//!   `datafusion.execution.target_partitions`: how many partitions, and so
//!   threads, a query runs on.
//! - Sizes that decide allocations are bounded when set: a batch size of
//!   `9223372036854775807` was accepted and every later scan of the session
//!   panicked; now the `SET` is refused with the allowed range.
//! - `SET disabled_optimizers = 'rule,...'` (DuckDB's) switches swingdb's
//!   optimizer rules off by name (see `sql::optimizer::rules`); unknown names are refused.
//! - `SET default_compression = 'zstd'` is the compression of the tables
//!   created from then on without one (see `frontend::prepare::storage_parameters`).
//! - `current_setting(name)` answers any setting's current value as text,
//!   as in PostgreSQL and DuckDB.
//! - `memory_limit` and `temp_directory` are the process's (see `sql::memory`).

use datafusion::arrow::array::{Array, AsArray, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::ConfigOptions;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, SetVariable, Signature, Volatility,
};
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

/// DuckDB's names of DataFusion's settings.
const ALIASES: &[(&str, &str)] = &[
    ("threads", "datafusion.execution.target_partitions"),
    ("worker_threads", "datafusion.execution.target_partitions"),
    ("disabled_optimizers", "swingdb.disabled_optimizers"),
    ("default_compression", "swingdb.default_compression"),
];

/// Settings whose value is bounded: name, least and greatest value. A batch
/// is allocated whole; partitions are tasks and buffers each.
const BOUNDS: &[(&str, u64, u64)] =
    &[("datafusion.execution.batch_size", 1, 1 << 20), ("datafusion.execution.target_partitions", 1, 1024)];

/// The name DataFusion knows the setting `name` by (`threads` is
/// `datafusion.execution.target_partitions`); other names are returned as
/// they are.
pub fn canonical_name(name: &str) -> &str {
    ALIASES.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(name)).map_or(name, |(_, canonical)| canonical)
}

/// `set` with its setting named as DataFusion knows it, or an error naming
/// the allowed range when its value is out of bounds.
pub fn checked(set: SetVariable) -> Result<SetVariable> {
    let variable = canonical_name(&set.variable).to_string();
    if let Some((_, least, greatest)) = BOUNDS.iter().find(|(name, ..)| name.eq_ignore_ascii_case(&variable)) {
        let within = set.value.trim().parse::<u64>().is_ok_and(|v| (*least..=*greatest).contains(&v));
        if !within {
            return Err(Error::programming(format!(
                "SET {}: '{}' is not a whole number from {least} to {greatest}",
                set.variable, set.value
            )));
        }
    }
    if variable.eq_ignore_ascii_case("swingdb.default_compression") {
        let value = set.value.parse::<swingdb_storage::Compression>()?.to_string();
        return Ok(SetVariable { variable, value });
    }
    if variable.eq_ignore_ascii_case("swingdb.disabled_optimizers") {
        let value = crate::optimizer::rules::checked_rule_list(&set.value)?;
        return Ok(SetVariable { variable, value });
    }
    Ok(SetVariable { variable, value: set.value })
}

/// `current_setting(name)`: the value of the setting `name` (any name
/// `SHOW` knows, or an alias such as `threads`) as text.
pub fn current_setting() -> ScalarUDF {
    ScalarUDF::new_from_impl(CurrentSetting { signature: Signature::exact(vec![DataType::Utf8], Volatility::Stable) })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct CurrentSetting {
    signature: Signature,
}

impl ScalarUDFImpl for CurrentSetting {
    fn name(&self) -> &str {
        "current_setting"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        let names = args.args[0].to_array(args.number_rows)?;
        let names = names.as_string::<i32>();
        let values = (0..names.len())
            .map(|i| if names.is_null(i) { Ok(None) } else { setting(&args.config_options, names.value(i)).map(Some) })
            .collect::<datafusion::common::Result<StringArray>>()?;
        Ok(ColumnarValue::Array(Arc::new(values)))
    }
}

/// The value of setting `name` in `options`; an error for a name no setting has.
fn setting(options: &ConfigOptions, name: &str) -> datafusion::common::Result<String> {
    if let Some(value) = crate::memory::shown(name) {
        return Ok(value);
    }
    let wanted = canonical_name(name);
    // swingdb's own settings are listed without their `swingdb.` prefix.
    let own = wanted.strip_prefix("swingdb.");
    options
        .entries()
        .into_iter()
        .find(|entry| entry.key.eq_ignore_ascii_case(wanted) || own.is_some_and(|own| entry.key.eq_ignore_ascii_case(own)))
        .map(|entry| entry.value.unwrap_or_default())
        .ok_or_else(|| {
            datafusion::common::DataFusionError::Plan(format!(
                "unrecognized setting '{name}'; SHOW ALL lists them, and `threads` is a name for datafusion.execution.target_partitions"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(variable: &str, value: &str) -> Result<SetVariable> {
        checked(SetVariable { variable: variable.into(), value: value.into() })
    }

    #[test]
    fn names_and_bounds() {
        assert_eq!(set("threads", "2").unwrap().variable, "datafusion.execution.target_partitions");
        assert_eq!(set("Worker_Threads", "1").unwrap().variable, "datafusion.execution.target_partitions");
        assert_eq!(set("datafusion.execution.batch_size", "4096").unwrap().value, "4096");
        for bad in ["9223372036854775807", "0", "-1", "lots", "1048577"] {
            let err = set("datafusion.execution.batch_size", bad).unwrap_err();
            assert!(err.message().contains("from 1 to 1048576"), "{}", err.message());
        }
        assert!(set("threads", "100000").is_err());
        assert_eq!(set("datafusion.optimizer.max_passes", "5").unwrap().value, "5");
    }

    #[test]
    fn current_values() {
        let options = ConfigOptions::default();
        assert_eq!(setting(&options, "threads").unwrap(), options.execution.target_partitions.to_string());
        assert_eq!(
            setting(&options, "DATAFUSION.EXECUTION.BATCH_SIZE").unwrap(),
            options.execution.batch_size.to_string()
        );
        assert!(setting(&options, "no_such").unwrap_err().to_string().contains("unrecognized setting 'no_such'"));
    }
}
