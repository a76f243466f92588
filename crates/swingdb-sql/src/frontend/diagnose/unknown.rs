//! Planning errors about names that do not resolve, made helpful: an
//! unknown table (the close name, or that no database is attached under its
//! schema), an unknown function (the close name among all kinds of
//! function), a file path used as a table while external access is off.

use crate::frontend::diagnose::suggest_table;
use crate::frontend::suggest::closest;
use crate::{Tables, CATALOG, SCHEMA};
use datafusion::execution::SessionState;
use swingdb_storage::error::{Error, ErrorKind};

/// `err` (from planning a statement with `state`, whose own database has
/// `tables` under schema `own`) made helpful.
pub(crate) fn explain(err: Error, state: &SessionState, tables: &Tables, own: &str, external_access: bool) -> Error {
    let err = missing_file(suggest_function(err, state), external_access);
    unknown_table(err, state, tables, own)
}

/// `err` about a table not found, made helpful: the close name among
/// the tables of the schema it was looked up in, or that no database is
/// attached under that schema's name. (`tables` is locked only to look the
/// name up: the catalog's schema locks it too while listing table names.)
fn unknown_table(err: Error, state: &SessionState, tables: &Tables, own: &str) -> Error {
    let message = err.message();
    let Some(name) = message.strip_prefix("table '").and_then(|r| r.strip_suffix("' not found")) else {
        return err;
    };
    let parts: Vec<&str> = name.split('.').collect();
    let in_own = match parts.as_slice() {
        [table] => Some(*table),
        [schema, table] if *schema == own => Some(*table),
        _ => None,
    };
    let found = in_own.and_then(|table| Some((table, tables.lock().get(table).cloned()?)));
    if let Some((table, other)) = found.filter(|(_, m)| !m.is_relation()) {
        let message = format!("'{table}' is a {}, not a table; only tables and views can be read", other.kind());
        return err.with_message(message);
    }
    let schema = match parts.as_slice() {
        [_, schema, _] | [schema, _] => *schema,
        _ => SCHEMA,
    };
    let Some(catalog) = state.catalog_list().catalog(CATALOG) else { return err };
    match catalog.schema(schema) {
        Some(provider) => suggest_table(err, provider.table_names().iter().map(String::as_str)),
        None => {
            let table = parts.last().copied().unwrap_or_default();
            let attached: Vec<String> =
                catalog.schema_names().into_iter().filter(|s| s != "information_schema").collect();
            let message = format!(
                "table '{schema}.{table}' does not exist: no database is attached as '{schema}' \
                 (ATTACH 'path' AS {schema} attaches one; attached: {})",
                attached.join(", ")
            );
            err.with_message(message)
        }
    }
}

/// `err` with a better "Did you mean" when it is about an unknown
/// function (see [`crate::frontend::suggest`]).
fn suggest_function(err: Error, state: &SessionState) -> Error {
    let message = err.message();
    let Some(rest) = message.strip_prefix("Invalid function '") else { return err };
    let Some((typed, _)) = rest.split_once("'.") else { return err };
    let names = state
        .scalar_functions()
        .keys()
        .chain(state.aggregate_functions().keys())
        .chain(state.window_functions().keys());
    match closest(typed, names.map(String::as_str)) {
        Some(name) => {
            let message = format!("Invalid function '{typed}'. Did you mean '{name}'?");
            err.with_message(message)
        }
        None => err,
    }
}

/// With external access off, a file path used as a table is "not found":
/// say why.
fn missing_file(err: Error, external_access: bool) -> Error {
    let looks_like_file = |m: &str| m.contains("not found") && (m.contains('/') || m.contains('.'));
    if external_access || err.kind() != ErrorKind::Programming || !looks_like_file(err.message()) {
        return err;
    }
    Error::programming(format!(
        "{}: file paths are not tables here, because external access is disabled for this database (external_access=False)",
        err.message()
    ))
}
