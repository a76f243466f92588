//! Temporary tables in a statement's text: `CREATE TEMP[ORARY] TABLE name`
//! becomes `CREATE TABLE temp.name` (the connection's temporary database,
//! see `engine::temp`), and each unqualified name of a temporary table
//! becomes `temp.name`, so that it shadows a stored table of the same name,
//! as in DuckDB and PostgreSQL. A name some WITH clause of the statement
//! defines is left alone (the CTE shadows both), and so is the table or view
//! a plain CREATE makes (it goes to `main`, as in DuckDB). (Temporary views
//! are the connection's registered views, see `statements::view`: they
//! shadow stored tables already.)

use crate::catalog::TEMP;
use crate::frontend::parse::identifier;
use datafusion::sql::parser::{CopyToSource, Statement as DFStatement};
use datafusion::sql::sqlparser::ast::{
    visit_relations_mut, Ident, ObjectName, ObjectNamePart, ObjectType, Query, Statement as SqlStatement, Visit,
    Visitor,
};
use std::collections::BTreeSet;
use std::ops::ControlFlow;
use swingdb_storage::error::{Error, Result};

/// Makes a `CREATE TEMP TABLE` create its table in schema `temp`; whether
/// `statement` was one.
pub fn take_temporary(statement: &mut DFStatement) -> Result<bool> {
    let DFStatement::Statement(s) = statement else { return Ok(false) };
    let name = match s.as_mut() {
        SqlStatement::CreateTable(create) if create.temporary => {
            create.temporary = false;
            &mut create.name
        }
        _ => return Ok(false),
    };
    let in_temp = |part: &ObjectNamePart| part.as_ident().is_some_and(|i| identifier(i) == TEMP);
    match name.0.as_slice() {
        [_] => name.0.insert(0, ObjectNamePart::Identifier(Ident::new(TEMP))),
        [schema, _] if in_temp(schema) => {}
        _ => {
            return Err(Error::programming(format!(
                "temporary table {name}: temporary tables live in schema temp; name it without a schema"
            )))
        }
    }
    Ok(true)
}

/// Qualifies with `temp` each unqualified name in `statement` that is one of
/// `names` (the connection's temporary tables).
pub fn resolve_temporary(statement: &mut DFStatement, names: &BTreeSet<String>) {
    if names.is_empty() {
        return;
    }
    match statement {
        DFStatement::Statement(s) => resolve_in(s, names),
        DFStatement::Explain(explain) => resolve_temporary(&mut explain.statement, names),
        DFStatement::CopyTo(copy) => match &mut copy.source {
            CopyToSource::Relation(name) => qualify(name, names, &BTreeSet::new()),
            CopyToSource::Query(query) => {
                let ctes = cte_names(query.as_ref());
                let _ = visit_relations_mut(query.as_mut(), |name| {
                    qualify(name, names, &ctes);
                    ControlFlow::<()>::Continue(())
                });
            }
        },
        _ => {}
    }
}

/// [`resolve_temporary`] of one SQL statement.
fn resolve_in(statement: &mut SqlStatement, names: &BTreeSet<String>) {
    let ctes = cte_names(statement);
    // What a plain CREATE makes is named as written (in `main`).
    let created = match statement {
        SqlStatement::CreateTable(create) => Some(create.name.clone()),
        SqlStatement::CreateView(create) => Some(create.name.clone()),
        _ => None,
    };
    let _ = visit_relations_mut(statement, |name| {
        qualify(name, names, &ctes);
        ControlFlow::<()>::Continue(())
    });
    match statement {
        SqlStatement::CreateTable(create) => create.name = created.unwrap_or_else(|| create.name.clone()),
        SqlStatement::CreateView(create) => create.name = created.unwrap_or_else(|| create.name.clone()),
        // DROP's names are not relations to the visitor.
        SqlStatement::Drop { object_type: ObjectType::Table | ObjectType::View, names: dropped, .. } => {
            for name in dropped {
                qualify(name, names, &ctes);
            }
        }
        _ => {}
    }
}

/// `name` as `temp.name` when it is unqualified, one of `names` and none of `ctes`.
fn qualify(name: &mut ObjectName, names: &BTreeSet<String>, ctes: &BTreeSet<String>) {
    let [part] = name.0.as_slice() else { return };
    let Some(ident) = part.as_ident() else { return };
    let folded = identifier(ident);
    if names.contains(&folded) && !ctes.contains(&folded) {
        name.0.insert(0, ObjectNamePart::Identifier(Ident::new(TEMP)));
    }
}

/// The names the WITH clauses anywhere in `node` define.
fn cte_names<V: Visit>(node: &V) -> BTreeSet<String> {
    struct Ctes(BTreeSet<String>);
    impl Visitor for Ctes {
        type Break = ();
        fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            if let Some(with) = &query.with {
                self.0.extend(with.cte_tables.iter().map(|cte| identifier(&cte.alias.name)));
            }
            ControlFlow::Continue(())
        }
    }
    let mut ctes = Ctes(BTreeSet::new());
    let _ = node.visit(&mut ctes);
    ctes.0
}
