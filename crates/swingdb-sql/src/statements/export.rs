//! `EXPORT DATABASE 'dir' [(FORMAT parquet|csv)]` and `IMPORT DATABASE
//! 'dir'`, as DuckDB's: the export writes each table as a Parquet (or CSV) file, `schema.sql` (the CREATE
//! statements of tables, indexes and views, keys and checks included) and
//! `load.sql` (a COPY per table, naming its file relative to the directory);
//! the import runs both, reading the files from that directory wherever it
//! has moved. Identifiers in the written SQL are quoted (quotes doubled).

use super::{Executor, Output};
use crate::frontend::parse::parse;
use crate::frontend::quote::{identifier as ident, string as literal};
use crate::frontend::types::column_type_name;
use crate::CATALOG;
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{CopyTarget, Statement as SqlStatement};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;
use swingdb_storage::error::{Error, ErrorKind, Result};
use swingdb_storage::{Definition, TableMeta};

/// The file format EXPORT DATABASE writes each table in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Parquet (the default).
    Parquet,
    /// CSV with a header line.
    Csv,
}

/// A parsed `EXPORT DATABASE 'dir' [(FORMAT parquet|csv)]` or `IMPORT DATABASE 'dir'`.
#[derive(Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Export (else import).
    pub export: bool,
    /// The directory.
    pub dir: String,
    /// The format of the tables' files (an import reads what `load.sql` says).
    pub format: Format,
}

/// `EXPORT DATABASE 'dir' [(FORMAT ...)]` or `IMPORT DATABASE 'dir'` in
/// `sql`; an error for options this cannot honour; `None` for other statements.
pub(crate) fn export_or_import(sql: &str) -> Option<Result<Transfer>> {
    let text = sql.trim().trim_end_matches(';');
    let (verb, rest) = text.split_once(char::is_whitespace)?;
    let (noun, rest) = rest.trim_start().split_once(char::is_whitespace)?;
    let export = match verb.to_ascii_uppercase().as_str() {
        "EXPORT" => true,
        "IMPORT" => false,
        _ => return None,
    };
    if !noun.eq_ignore_ascii_case("DATABASE") {
        return None;
    }
    let rest = rest.trim().strip_prefix('\'')?;
    // The directory runs to the first quote that is not doubled.
    let mut dir = String::new();
    let mut chars = rest.char_indices().peekable();
    let after = loop {
        let (i, c) = chars.next()?;
        match c {
            '\'' if chars.peek().is_some_and(|&(_, n)| n == '\'') => {
                chars.next();
                dir.push('\'');
            }
            '\'' => break rest[i + 1..].trim(),
            c => dir.push(c),
        }
    };
    Some(options(after, export).map(|format| Transfer { export, dir, format }))
}

/// The format `(FORMAT parquet|csv)` asks for (Parquet when there are no options).
fn options(text: &str, export: bool) -> Result<Format> {
    if text.is_empty() {
        return Ok(Format::Parquet);
    }
    let statement = if export { "EXPORT DATABASE" } else { "IMPORT DATABASE" };
    let inner = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).filter(|_| export);
    let Some(inner) = inner else {
        return Err(Error::programming(format!(
            "{statement} takes a quoted directory{}",
            if export { " and (FORMAT parquet|csv)" } else { " only" }
        )));
    };
    let mut format = Format::Parquet;
    for option in inner.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let (key, value) = option.split_once(char::is_whitespace).unwrap_or((option, ""));
        let value = value.trim().trim_matches('\'').to_ascii_lowercase();
        match (key.to_ascii_uppercase().as_str(), value.as_str()) {
            ("FORMAT", "parquet") => format = Format::Parquet,
            ("FORMAT", "csv") => format = Format::Csv,
            _ => {
                return Err(Error::new(
                    ErrorKind::NotSupported,
                    format!(
                        "{statement} option '{option}' is not supported; FORMAT parquet (the default) or FORMAT csv"
                    ),
                ))
            }
        }
    }
    Ok(format)
}

fn column_list(columns: &[String]) -> String {
    columns.iter().map(|c| ident(c)).collect::<Vec<_>>().join(", ")
}

/// The CREATE TABLE statement (and its indexes) that makes `meta` again.
fn create_sql(name: &str, meta: &TableMeta) -> String {
    let c = &meta.constraints;
    let mut parts: Vec<String> = meta
        .schema
        .fields()
        .iter()
        .map(|f| {
            let type_name = match EnumType::of_field(f) {
                Some(e) if !e.name.is_empty() => ident(&e.name),
                _ => column_type_name(f),
            };
            let mut column = format!("{} {}", ident(f.name()), type_name);
            if c.identity.contains_key(f.name()) {
                column.push_str(" GENERATED BY DEFAULT AS IDENTITY");
            }
            if !f.is_nullable() {
                column.push_str(" NOT NULL");
            }
            if let Some(default) = c.defaults.get(f.name()) {
                column.push_str(&format!(" DEFAULT {default}"));
            }
            column
        })
        .collect();
    if let Some(key) = &c.primary_key {
        parts.push(format!("PRIMARY KEY ({})", column_list(key)));
    }
    parts.extend(c.unique.iter().map(|u| format!("UNIQUE ({})", column_list(u))));
    parts.extend(c.checks.iter().map(|check| format!("CHECK ({check})")));
    parts.extend(c.foreign_keys.iter().map(|fk| {
        format!(
            "FOREIGN KEY ({}) REFERENCES {} ({})",
            column_list(&fk.columns),
            ident(&fk.parent),
            column_list(&fk.parent_columns)
        )
    }));
    let compression = match c.compression.is_default() {
        true => String::new(),
        false => format!(" WITH (compression = '{}')", c.compression),
    };
    let cluster = match c.cluster_by.is_empty() {
        true => String::new(),
        false => format!(" CLUSTER BY ({})", column_list(&c.cluster_by)),
    };
    let mut out = format!("CREATE TABLE {} (\n    {}\n){compression}{cluster};\n", ident(name), parts.join(",\n    "));
    for (index, columns) in &c.unique_indexes {
        out.push_str(&format!("CREATE UNIQUE INDEX {} ON {} ({});\n", ident(index), ident(name), column_list(columns)));
    }
    for (index, columns) in &c.indexes {
        out.push_str(&format!("CREATE INDEX {} ON {} ({});\n", ident(index), ident(name), column_list(columns)));
    }
    out
}

/// Table names with every table after those its FOREIGN KEYs reference.
fn in_dependency_order(tables: &BTreeMap<String, Arc<TableMeta>>) -> Vec<String> {
    let mut done: Vec<String> = Vec::new();
    let mut left: Vec<&String> = tables.iter().filter(|(_, m)| m.is_table()).map(|(n, _)| n).collect();
    while !left.is_empty() {
        let before = left.len();
        left.retain(|name| {
            let ready = tables[*name]
                .constraints
                .foreign_keys
                .iter()
                .all(|fk| fk.parent == **name || done.contains(&fk.parent));
            if ready {
                done.push((*name).clone());
            }
            !ready
        });
        if left.len() == before {
            done.extend(left.drain(..).cloned()); // a cycle: keep the rest as they are
        }
    }
    done
}

/// A file name for table `name`'s data: its characters that are safe, and
/// its position (names may differ only in what is left out).
fn file_name(position: usize, name: &str, format: Format) -> String {
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).take(64).collect();
    let extension = match format {
        Format::Parquet => "parquet",
        Format::Csv => "csv",
    };
    format!("{position:03}_{safe}.{extension}")
}

impl Executor {
    /// The statement(s) that make table or view `name` again (see
    /// `Connection::create_statement`).
    pub fn create_statement(&self, name: &str) -> Result<String> {
        self.definition(name, self.visible_table(name)?.as_ref())
    }

    /// The statement(s) that make catalog entry `name` again; a sequence
    /// starts where this one would go on.
    fn definition(&self, name: &str, meta: &TableMeta) -> Result<String> {
        Ok(match &meta.definition {
            None => create_sql(name, meta),
            Some(Definition::View(sql) | Definition::Macro(sql)) => format!("{};\n", sql.trim_end_matches(';')),
            Some(Definition::Sequence(sequence)) => {
                let Some(next) = sequence.peek(&self.core.dir().segment_path(&sequence.file))? else {
                    // No CREATE SEQUENCE makes one that gives nothing more,
                    // and made at its last value it would give that again.
                    return Err(Error::programming(format!(
                        "sequence '{name}' ran out and cannot be written as a statement; DROP it or create it again with CYCLE or a larger range"
                    )));
                };
                format!("{};\n", sequence.sql(&ident(name), next))
            }
            Some(Definition::Enum(labels)) => {
                let enum_type = EnumType::new(name, labels.clone())?;
                format!("CREATE TYPE {} AS {};\n", ident(name), enum_type.sql_name())
            }
        })
    }

    /// `EXPORT DATABASE 'dir'`: see the module doc.
    pub(crate) async fn export_database(&self, dir: &str, format: Format) -> Result<Output> {
        self.check_external_access("EXPORT DATABASE")?;
        let root = PathBuf::from(dir);
        std::fs::create_dir_all(&root).map_err(|e| Error::io(format!("creating {}", root.display()), e))?;
        let tables = self.tables.lock().clone();
        let mut schema = String::from("-- swingdb EXPORT DATABASE: the sequences, macros, tables, indexes and views\n");
        // Sequences first (DEFAULTs may take from them), then macros.
        let mut objects: Vec<(&String, &Arc<TableMeta>)> = tables.iter().filter(|(_, m)| !m.is_relation()).collect();
        objects.sort_by_key(|(_, m)| (m.as_sequence().is_none(), m.modified));
        for (name, meta) in objects {
            schema.push_str(&self.definition(name, meta)?);
        }
        let mut load = String::from(
            "-- swingdb EXPORT DATABASE: the data, one file per table (paths relative to this directory)\n",
        );
        for (position, name) in in_dependency_order(&tables).iter().enumerate() {
            schema.push_str(&create_sql(name, &tables[name]));
            let file = file_name(position, name, format);
            let frame =
                self.ctx.table(datafusion::common::TableReference::full(CATALOG, crate::SCHEMA, name.as_str())).await?;
            let target = root.join(&file);
            let (path, options) =
                (target.to_string_lossy(), DataFrameWriteOptions::new().with_single_file_output(true));
            let written = match format {
                Format::Parquet => frame.write_parquet(&path, options, None).await,
                Format::Csv => frame.write_csv(&path, options, None).await,
            };
            written.map_err(|e| {
                Error::operational(format!("writing {}: {}", target.display(), Error::from(e).message()))
            })?;
            let read = match format {
                Format::Parquet => "FORMAT parquet",
                Format::Csv => "FORMAT csv, HEADER true",
            };
            load.push_str(&format!("COPY {} FROM {} ({read});\n", ident(name), literal(&file)));
        }
        let mut views: Vec<(&String, &Arc<TableMeta>)> = tables.iter().filter(|(_, m)| m.is_view()).collect();
        views.sort_by_key(|(_, m)| m.modified);
        for (name, meta) in views {
            schema.push_str(&self.definition(name, meta)?);
        }
        for (file, text) in [("schema.sql", &schema), ("load.sql", &load)] {
            let path = root.join(file);
            std::fs::write(&path, text).map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        }
        Ok(Output::Empty)
    }

    /// `IMPORT DATABASE 'dir'`: runs its `schema.sql`, then its `load.sql`
    /// with each COPY reading from `dir`.
    pub(crate) async fn import_database(&self, dir: &str) -> Result<Output> {
        self.check_external_access("IMPORT DATABASE")?;
        let root = Path::new(dir);
        let read = |file: &str| {
            let path = root.join(file);
            std::fs::read_to_string(&path).map_err(|e| {
                Error::programming(format!(
                    "IMPORT DATABASE: cannot read {} ({e}); is '{dir}' a directory EXPORT DATABASE wrote?",
                    path.display()
                ))
            })
        };
        let (schema, load) = (read("schema.sql")?, read("load.sql")?);
        for statement in parse(&schema)? {
            self.run_in_txn(statement, &[], true).await?;
        }
        for mut statement in parse(&load)? {
            if let DFStatement::Statement(s) = &mut statement {
                if let SqlStatement::Copy { target: CopyTarget::File { filename }, .. } = s.as_mut() {
                    if Path::new(filename.as_str()).is_relative() {
                        *filename = root.join(&*filename).to_string_lossy().into_owned();
                    }
                }
            }
            self.run_in_txn(statement, &[], true).await?;
        }
        Ok(Output::Empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statements_are_recognized_with_their_directory() {
        let transfer = |export, dir: &str, format| Some(Transfer { export, dir: dir.into(), format });
        assert_eq!(
            export_or_import("EXPORT DATABASE 'out'").map(Result::unwrap),
            transfer(true, "out", Format::Parquet)
        );
        assert_eq!(
            export_or_import("  import   database 'it''s dir';").map(Result::unwrap),
            transfer(false, "it's dir", Format::Parquet)
        );
        assert_eq!(
            export_or_import("EXPORT DATABASE 'a''b' (FORMAT 'CSV')").map(Result::unwrap),
            transfer(true, "a'b", Format::Csv)
        );
        assert_eq!(
            export_or_import("EXPORT DATABASE 'o' (format parquet)").map(Result::unwrap),
            transfer(true, "o", Format::Parquet)
        );
        assert!(export_or_import("EXPORT DATABASE 'o' (FORMAT json)")
            .unwrap()
            .unwrap_err()
            .message()
            .contains("FORMAT csv"));
        assert!(export_or_import("IMPORT DATABASE 'o' (FORMAT csv)").unwrap().is_err());
        assert!(export_or_import("EXPORT DATABASE out").is_none());
        assert!(export_or_import("SELECT 1").is_none());
    }
}
