//! ENUM types in statements (see `swingdb_storage::encoding::enums`): the names of
//! the database's types, and `ENUM('a', 'b')` written inline, where SQL
//! takes a type.
//!
//! - `CAST(x AS mood)`, `x::mood`, `TRY_CAST(x AS mood)` become calls of the
//!   casts of [`super::enum_functions`], which carry the type's name and
//!   labels as literals: the plan then needs no catalog to type them.
//! - A `CREATE TABLE` column of such a type is declared VARCHAR for
//!   DataFusion's planner, which knows no ENUM, and given its type again in
//!   the plan ([`typed_columns`]).

use super::enum_functions::{CAST, TRY_CAST};
use crate::frontend::names::object_name;
use crate::Tables;
use datafusion::common::DFSchema;
use datafusion::logical_expr::{CreateMemoryTable, DdlStatement, EmptyRelation, LogicalPlan};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    visit_expressions_mut, CastKind, DataType as SqlType, EnumMember, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArgumentList, FunctionArguments, Ident, ObjectName, Statement, Value,
};
use std::ops::ControlFlow;
use std::sync::Arc;
use swingdb_storage::encoding::enums::EnumType;
use swingdb_storage::error::{Error, Result};

/// The columns of a CREATE TABLE declared of ENUM types, by name.
pub type EnumColumns = Vec<(String, EnumType)>;

/// The ENUM type `data_type` names (a type of the database `own`, whose
/// entries are `tables`) or spells inline; `None` for other types.
fn enum_type(data_type: &SqlType, tables: &Tables, own: &str) -> Result<Option<EnumType>> {
    match data_type {
        SqlType::Enum(members, _) => {
            let labels = members
                .iter()
                .map(|m| match m {
                    EnumMember::Name(label) => Ok(label.clone()),
                    EnumMember::NamedValue(..) => {
                        Err(Error::programming("ENUM labels take no numbers here: write ENUM('a', 'b')"))
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Some(EnumType::new("", labels)?))
        }
        SqlType::Custom(name, modifiers) if modifiers.is_empty() => {
            let name = object_name(name, own)?;
            let labels = tables.lock().get(&name).and_then(|t| t.enum_labels().map(<[String]>::to_vec));
            labels.map(|labels| EnumType::new(&name, labels)).transpose()
        }
        _ => Ok(None),
    }
}

/// `value` cast to `enum_type` by the call of `function`.
fn cast_call(function: &str, value: Expr, enum_type: &EnumType) -> Expr {
    let text = |s: &str| FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::value(Value::SingleQuotedString(s.into()))));
    let mut args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(value)), text(&enum_type.name)];
    args.extend(enum_type.labels.iter().map(|l| text(l)));
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(function)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList { duplicate_treatment: None, args, clauses: vec![] }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// Rewrites the ENUM types of `statement` (see the module docs); returns
/// the columns of a CREATE TABLE declared of one.
pub fn resolve(statement: &mut DFStatement, tables: &Tables, own: &str) -> Result<EnumColumns> {
    let statement = match statement {
        DFStatement::Statement(s) => s.as_mut(),
        DFStatement::Explain(explain) => return resolve(&mut explain.statement, tables, own),
        _ => return Ok(Vec::new()),
    };
    let mut columns = Vec::new();
    if let Statement::CreateTable(create) = statement {
        for column in &mut create.columns {
            if let Some(enum_type) = enum_type(&column.data_type, tables, own)? {
                column.data_type = SqlType::Varchar(None);
                // Named as the planner names it: unquoted names folded.
                let name = match column.name.quote_style {
                    None => column.name.value.to_lowercase(),
                    Some(_) => column.name.value.clone(),
                };
                columns.push((name, enum_type));
            }
        }
    }
    let outcome = visit_expressions_mut(statement, |expr| {
        let Expr::Cast { kind, data_type, .. } = expr else { return ControlFlow::Continue(()) };
        let enum_type = match enum_type(data_type, tables, own) {
            Ok(Some(enum_type)) => enum_type,
            Ok(None) => return ControlFlow::Continue(()),
            Err(e) => return ControlFlow::Break(e),
        };
        let function = match kind {
            CastKind::TryCast | CastKind::SafeCast => TRY_CAST,
            CastKind::Cast | CastKind::DoubleColon => CAST,
        };
        let Expr::Cast { expr: value, .. } = std::mem::replace(expr, Expr::value(Value::Null)) else {
            unreachable!("matched above")
        };
        *expr = cast_call(function, *value, &enum_type);
        ControlFlow::Continue(())
    });
    match outcome {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(columns),
    }
}

/// `plan` (a CREATE TABLE with declared columns) with the columns of
/// `columns` of their ENUM types.
pub fn typed_columns(plan: LogicalPlan, columns: &EnumColumns) -> Result<LogicalPlan> {
    if columns.is_empty() {
        return Ok(plan);
    }
    let LogicalPlan::Ddl(DdlStatement::CreateMemoryTable(create)) = plan else {
        return Err(Error::internal("ENUM columns outside a CREATE TABLE"));
    };
    let LogicalPlan::EmptyRelation(empty) = create.input.as_ref() else {
        return Err(Error::programming("a CREATE TABLE ... AS query takes its columns' types from the query"));
    };
    let mut found = 0;
    let typed: Vec<_> = empty
        .schema
        .iter()
        .map(|(qualifier, field)| {
            let declared = columns.iter().find(|(name, _)| name == field.name());
            found += usize::from(declared.is_some());
            let field = match declared {
                Some((_, enum_type)) => Arc::new(enum_type.field(field.name(), field.is_nullable())),
                None => field.clone(),
            };
            (qualifier.cloned(), field)
        })
        .collect();
    if found != columns.len() {
        return Err(Error::internal("an ENUM column of a CREATE TABLE was not found in its plan"));
    }
    let schema = DFSchema::new_with_metadata(typed, empty.schema.metadata().clone())?;
    let input = LogicalPlan::EmptyRelation(EmptyRelation { produce_one_row: false, schema: Arc::new(schema) });
    Ok(LogicalPlan::Ddl(DdlStatement::CreateMemoryTable(CreateMemoryTable { input: Arc::new(input), ..create })))
}
