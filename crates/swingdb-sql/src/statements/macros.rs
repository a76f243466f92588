//! CREATE and DROP MACRO (also spelled CREATE / DROP FUNCTION): a macro is
//! stored as its `CREATE MACRO` statement in the catalog beside the tables;
//! queries have its calls replaced by its body (see `sql::frontend::dialect::macros`).

use super::Executor;
use super::Output;
use crate::frontend::dialect::macros::Macro;
use crate::frontend::names::object_name;
use datafusion::sql::sqlparser::ast::{FunctionDesc, MacroArg, MacroDefinition, ObjectName};
use std::sync::Arc;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::TableMeta;

impl Executor {
    /// `CREATE [OR REPLACE] MACRO name(params) AS expr | AS TABLE query`.
    pub(crate) fn create_macro(
        &self,
        name: &ObjectName,
        or_replace: bool,
        temporary: bool,
        args: Option<&[MacroArg]>,
        body: &MacroDefinition,
    ) -> Result<Output> {
        let name = object_name(name, &self.own)?;
        if temporary {
            return Err(Error::new(
                ErrorKind::NotSupported,
                format!("temporary macros are not supported; CREATE MACRO {name} stores one (DROP MACRO removes it)"),
            ));
        }
        let sql = Macro::definition(&name, args, body)?;
        let mut tables = self.tables.lock();
        match tables.get(&name) {
            Some(existing) if existing.macro_sql().is_none() => return Err(existing.name_taken(&name, "macro")),
            Some(_) if !or_replace => {
                return Err(Error::programming(format!(
                    "macro '{name}' already exists; use CREATE OR REPLACE MACRO or DROP MACRO first"
                )))
            }
            _ => {}
        }
        tables.insert(name, Arc::new(TableMeta::macro_defined_by(sql)));
        Ok(Output::Empty)
    }

    /// `DROP MACRO [TABLE] [IF EXISTS] name, ...` (parsed as DROP FUNCTION).
    pub(crate) fn drop_macros(&self, functions: &[FunctionDesc], if_exists: bool) -> Result<Output> {
        self.drop_entries(functions.iter().map(|f| &f.name), if_exists, "macro")
    }
}
