//! Table names as statements give them: checked, resolved against the
//! database a statement changes (`main`, or an attached database's alias),
//! and folded to lower case unless quoted.

use crate::CATALOG;
use datafusion::common::TableReference;
use datafusion::sql::sqlparser::ast::ObjectName;
use swingdb_storage::error::{Error, Result};

/// Refuses names no table can have.
pub fn check_table_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::programming("a table name cannot be empty"));
    }
    Ok(())
}

/// The name of the table `reference` names in the database whose schema is
/// `own` (`main`, or the alias of an attached database): a plain name, or one
/// qualified with `own` (and swingdb's catalog).
pub(crate) fn table_name(reference: &TableReference, own: &str) -> Result<String> {
    check_table_name(reference.table())?;
    let ok_schema = reference.schema().is_none_or(|s| s == own);
    let ok_catalog = reference.catalog().is_none_or(|c| c == CATALOG);
    if !ok_schema || !ok_catalog {
        let schema = reference.schema().unwrap_or_default();
        return Err(Error::programming(format!(
            "'{reference}' cannot be changed: '{schema}' is not a database attached for writing \
             (ATTACH 'path' AS {schema} attaches one; snapshots attached with ATTACH SNAPSHOT are read-only)"
        )));
    }
    Ok(reference.table().to_string())
}

/// [`table_name`] of a name as the parser gives it.
pub(crate) fn object_name(name: &ObjectName, own: &str) -> Result<String> {
    let reference = TableReference::from(name.to_string().as_str());
    // sqlparser keeps the user's case; SQL identifiers fold to lower case unless quoted.
    let table = table_name(&reference, own)?;
    let quoted = name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.quote_style.is_some());
    Ok(if quoted { table } else { table.to_lowercase() })
}
