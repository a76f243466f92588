//! CREATE and DROP SEQUENCE: a sequence is a catalog entry beside the tables
//! (its options) and a counter file (see `storage::sequence`), which this
//! transaction creates and which is deleted with it if it does not commit.

use super::Executor;
use super::Output;
use crate::frontend::dialect::sequences::read_create;
use crate::frontend::names::object_name;
use datafusion::sql::sqlparser::ast::{DataType, ObjectName, SequenceOptions};
use std::sync::Arc;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::TableMeta;

impl Executor {
    /// `CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS] name [options]`.
    pub(crate) fn create_sequence(
        &self,
        name: &ObjectName,
        temporary: bool,
        if_not_exists: bool,
        data_type: Option<&DataType>,
        options: &[SequenceOptions],
    ) -> Result<Output> {
        let name = object_name(name, &self.own)?;
        if temporary {
            return Err(Error::new(
                ErrorKind::NotSupported,
                format!("temporary sequences are not supported; CREATE SEQUENCE {name} stores one (DROP SEQUENCE removes it)"),
            ));
        }
        let mut create = read_create(&name, data_type, options)?;
        match self.tables.lock().get(&name) {
            Some(existing) if existing.as_sequence().is_none() => return Err(existing.name_taken(&name, "sequence")),
            Some(_) if if_not_exists => return Ok(Output::Empty),
            Some(_) if !create.or_replace => {
                return Err(Error::programming(format!(
                    "sequence '{name}' already exists; use CREATE OR REPLACE SEQUENCE, CREATE SEQUENCE IF NOT EXISTS, or DROP SEQUENCE first"
                )))
            }
            _ => {}
        }
        let path = self.core.dir().new_sequence_path()?;
        create.sequence.file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        create.sequence.create_counter(&path)?;
        self.record_files(vec![path]);
        self.tables.lock().insert(name, Arc::new(TableMeta::sequence(create.sequence)));
        Ok(Output::Empty)
    }

    /// `DROP SEQUENCE [IF EXISTS] name, ...`.
    pub(crate) fn drop_sequences(&self, names: &[ObjectName], if_exists: bool) -> Result<Output> {
        self.drop_entries(names.iter(), if_exists, "sequence")
    }

    /// Drops the catalog entries `names`, each of which must be a `kind`
    /// ("sequence", "macro": see [`TableMeta::kind`]); all or none.
    pub(crate) fn drop_entries<'a>(
        &self,
        names: impl Iterator<Item = &'a ObjectName>,
        if_exists: bool,
        kind: &str,
    ) -> Result<Output> {
        let mut tables = self.tables.lock().clone();
        for written in names {
            let name = object_name(written, &self.own)?;
            match tables.get(&name) {
                Some(meta) if meta.kind() == kind => {
                    tables.remove(&name);
                }
                Some(other) => return Err(other.not_a(&name, kind)),
                None if if_exists => {}
                None => {
                    let upper = kind.to_uppercase();
                    return Err(Error::programming(format!(
                        "{kind} '{name}' does not exist (use DROP {upper} IF EXISTS to ignore)"
                    )));
                }
            }
        }
        *self.tables.lock() = tables;
        Ok(Output::Empty)
    }
}
