//! What a catalog entry that holds no rows is: a view, a macro, a
//! sequence or an ENUM type (they share the tables' namespace), and how a
//! [`TableMeta`] says which it is.

use super::TableMeta;
use crate::dir::sequence::Sequence;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use std::sync::Arc;

/// What a catalog entry that holds no rows is (see [`TableMeta::definition`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Definition {
    /// A view: its `CREATE VIEW` statement.
    View(String),
    /// A macro: its `CREATE MACRO` statement (see `sql::frontend::dialect::macros`).
    Macro(String),
    /// A sequence: its options and counter file (see [`crate::dir::sequence`]).
    Sequence(Sequence),
    /// An ENUM type: its labels, in the order declared (see [`crate::enums`]).
    Enum(Vec<String>),
}

impl TableMeta {
    /// A view defined by the `CREATE VIEW` statement `sql`, whose columns are `schema`.
    pub fn view(schema: SchemaRef, sql: String) -> Self {
        Self { definition: Some(Definition::View(sql)), ..Self::new(schema) }
    }

    /// A macro defined by the `CREATE MACRO` statement `sql`.
    pub fn macro_defined_by(sql: String) -> Self {
        Self { definition: Some(Definition::Macro(sql)), ..Self::new(Arc::new(Schema::empty())) }
    }

    /// A sequence.
    pub fn sequence(sequence: Sequence) -> Self {
        Self { definition: Some(Definition::Sequence(sequence)), ..Self::new(Arc::new(Schema::empty())) }
    }

    /// An ENUM type of `labels`.
    pub fn enum_type(labels: Vec<String>) -> Self {
        Self { definition: Some(Definition::Enum(labels)), ..Self::new(Arc::new(Schema::empty())) }
    }

    /// Whether this is a view.
    pub fn is_view(&self) -> bool {
        matches!(self.definition, Some(Definition::View(_)))
    }

    /// Whether this is a table (not a view, macro or sequence).
    pub fn is_table(&self) -> bool {
        self.definition.is_none()
    }

    /// Whether queries read it as rows: a table or a view (not a macro or sequence).
    pub fn is_relation(&self) -> bool {
        self.is_table() || self.is_view()
    }

    /// "'name' is a KIND; DROP KIND it first to name a `wanted` so": the
    /// error of a CREATE whose name this entry (of another kind) has.
    pub fn name_taken(&self, name: &str, wanted: &str) -> crate::error::Error {
        let kind = self.kind();
        crate::error::Error::programming(format!(
            "'{name}' is a {kind}; DROP {} it first to name a {wanted} so",
            kind.to_uppercase()
        ))
    }

    /// "'name' is a KIND, not a `wanted`; use DROP KIND": the error of a
    /// DROP `wanted` that names this entry (of another kind).
    pub fn not_a(&self, name: &str, wanted: &str) -> crate::error::Error {
        let kind = self.kind();
        crate::error::Error::programming(format!(
            "'{name}' is a {kind}, not a {wanted}; use DROP {}",
            kind.to_uppercase()
        ))
    }

    /// The `CREATE VIEW` statement of a view.
    pub fn view_sql(&self) -> Option<&str> {
        match &self.definition {
            Some(Definition::View(sql)) => Some(sql),
            _ => None,
        }
    }

    /// The `CREATE MACRO` statement of a macro.
    pub fn macro_sql(&self) -> Option<&str> {
        match &self.definition {
            Some(Definition::Macro(sql)) => Some(sql),
            _ => None,
        }
    }

    /// The sequence this entry is.
    pub fn as_sequence(&self) -> Option<&Sequence> {
        match &self.definition {
            Some(Definition::Sequence(sequence)) => Some(sequence),
            _ => None,
        }
    }

    /// The labels of the ENUM type this entry is.
    pub fn enum_labels(&self) -> Option<&[String]> {
        match &self.definition {
            Some(Definition::Enum(labels)) => Some(labels),
            _ => None,
        }
    }

    /// Whether one of its columns is of ENUM type `name`.
    pub fn uses_enum(&self, name: &str) -> bool {
        self.schema
            .fields()
            .iter()
            .any(|f| f.metadata().get(crate::encoding::enums::ENUM_KEY).is_some_and(|n| n == name))
    }

    /// What this entry is, in a message: "table", "view", "macro", "sequence" or "type".
    pub fn kind(&self) -> &'static str {
        match self.definition {
            None => "table",
            Some(Definition::View(_)) => "view",
            Some(Definition::Macro(_)) => "macro",
            Some(Definition::Sequence(_)) => "sequence",
            Some(Definition::Enum(_)) => "type",
        }
    }
}
