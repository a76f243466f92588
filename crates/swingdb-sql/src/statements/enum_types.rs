//! CREATE and DROP TYPE: an ENUM type is a catalog entry beside the tables
//! (its labels); its columns carry the labels too (see
//! `swingdb_storage::encoding::enums`), so dropping it is refused while one
//! uses it.
//!
//! Both change only the manifest, committed as any catalog change (no file
//! of its own). Concurrent writers: two CREATE TYPE of one name conflict as
//! two entries of one name do. A DROP TYPE committed while another process
//! adds a column of the type (it read the type before the drop) commits
//! both, the names differing: the column keeps working, as it reads and
//! writes by the labels it carries, and only the catalog entry is gone (a
//! later CREATE TYPE of that name makes a new type; the column keeps its
//! labels). No value is lost or misread either way.

use super::Executor;
use super::Output;
use crate::frontend::names::object_name;
use datafusion::sql::sqlparser::ast::{ObjectName, UserDefinedTypeRepresentation};
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::TableMeta;

impl Executor {
    /// `CREATE TYPE name AS ENUM ('label', ...)`.
    pub(crate) fn create_type(
        &self,
        name: &ObjectName,
        representation: Option<&UserDefinedTypeRepresentation>,
    ) -> Result<Output> {
        let name = object_name(name, &self.own)?;
        let Some(UserDefinedTypeRepresentation::Enum { labels }) = representation else {
            return Err(Error::new(
                ErrorKind::NotSupported,
                format!("CREATE TYPE {name}: only ENUM types are supported (CREATE TYPE {name} AS ENUM ('a', 'b'))"),
            ));
        };
        let enum_type = EnumType::new(&name, labels.iter().map(|l| l.value.clone()).collect())?;
        let mut tables = self.tables.lock();
        match tables.get(&name) {
            Some(existing) if existing.enum_labels().is_none() => return Err(existing.name_taken(&name, "type")),
            Some(_) => {
                return Err(Error::programming(format!(
                    "type '{name}' already exists; DROP TYPE {name} first to define it again"
                )))
            }
            None => {}
        }
        tables.insert(name, Arc::new(TableMeta::enum_type(enum_type.labels.to_vec())));
        Ok(Output::Empty)
    }

    /// `DROP TYPE [IF EXISTS] name, ...`: refused while a column is of one.
    pub(crate) fn drop_types(&self, names: &[ObjectName], if_exists: bool) -> Result<Output> {
        {
            let tables = self.tables.lock();
            for written in names {
                let name = object_name(written, &self.own)?;
                if let Some((table, _)) = tables.iter().find(|(_, t)| t.uses_enum(&name)) {
                    return Err(Error::programming(format!(
                        "cannot drop type '{name}': a column of table '{table}' is of it; drop or alter that column first"
                    )));
                }
            }
        }
        self.drop_entries(names.iter(), if_exists, "type")
    }
}
