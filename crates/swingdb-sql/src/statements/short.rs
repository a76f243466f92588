//! Which short statement a SQL text is (see `shapes.rs`), remembered per
//! text, and the literals of one typed as the general path types them.

use super::shapes::{recognize, RowValue, Short, Typed, MAX_TEXT, REMEMBERED};
use super::Executor;
use crate::catalog::key_lookup::KeyLookup;
use crate::optimizer::rules::is_enabled;
use crate::{SCHEMA, TEMP};
use datafusion::catalog::SchemaProvider;
use datafusion::common::{Column, DFSchema, ScalarValue};
use datafusion::logical_expr::Expr;
use swingdb_storage::TableMeta;

/// The lookup of the key of `meta` whose columns are exactly `pinned`, at
/// `values` (one per column of `pinned`); `None` when the columns are not
/// exactly one key's, or a value does not fit its column (see
/// `catalog::key_lookup`): the general path decides then.
pub(super) fn key_lookup(meta: &TableMeta, pinned: &[String], values: &[&ScalarValue]) -> Option<KeyLookup> {
    let filters: Vec<Expr> = pinned
        .iter()
        .zip(values)
        .map(|(c, v)| Expr::Column(Column::from_name(c)).eq(Expr::Literal((*v).clone(), None)))
        .collect();
    let lookup = KeyLookup::from_filters(meta, &filters).filter(KeyLookup::finds_one_row_each)?;
    let mut key: Vec<&String> = lookup.columns().iter().collect();
    let mut columns: Vec<&String> = pinned.iter().collect();
    key.sort();
    columns.sort();
    // Other equalities too: the general path filters by them.
    (key == columns).then_some(lookup)
}

impl Executor {
    /// The short statement `sql` is, if it is one (remembered per text, for
    /// the last [`REMEMBERED`] texts). Fast inserts are recognized only
    /// while they are on (see [`Executor::set_fast_inserts`]).
    pub(crate) fn short_statement(&self, sql: &str) -> Option<Short> {
        let start = sql.trim_start().get(..6)?;
        let verb = |v: &str| start.eq_ignore_ascii_case(v);
        if sql.len() > MAX_TEXT || !(verb("select") || verb("insert") || verb("update") || verb("delete")) {
            return None;
        }
        let known = {
            let mut remembered = self.remembered.lock();
            match remembered.get(sql) {
                Some(known) => known.clone(),
                None => {
                    if remembered.len() >= REMEMBERED {
                        remembered.clear();
                    }
                    let short = recognize(sql);
                    remembered.insert(sql.to_string(), short.clone());
                    short
                }
            }
        };
        let short = known?;
        // A temporary table of the name shadows the stored one the short
        // path would find: the general path resolves it (see `frontend::temporary`).
        if self.databases.lock().get(TEMP).is_some_and(|temp| temp.table_exist(short.table())) {
            return None;
        }
        match short {
            Short::Insert(_) if !self.fast_inserts.load(std::sync::atomic::Ordering::Relaxed) => None,
            short => Some(short),
        }
    }

    /// `values` as the planner types them (`None` in place of each
    /// parameter); `None` if a literal does not plan to a plain literal.
    pub(super) fn typed_values(&self, values: &[RowValue]) -> Option<Vec<Option<ScalarValue>>> {
        let state = self.ctx.state();
        let empty = DFSchema::empty();
        let typed = |text: &str| match state.create_logical_expr(text, &empty) {
            Ok(datafusion::logical_expr::Expr::Literal(value, None)) => Some(value),
            _ => None,
        };
        values
            .iter()
            .map(|v| match v {
                RowValue::Param(_) => Some(None),
                RowValue::Literal(text) => typed(text).map(Some),
            })
            .collect()
    }

    /// Whether a short statement on table `table` may run here: lookups by
    /// key are on, names resolve in this connection's own `main`, and no
    /// registered data hides the table.
    pub(super) fn short_path_open(&self, table: &str) -> bool {
        {
            let state = self.ctx.state_ref();
            let state = state.read();
            let options = state.config_options();
            if !is_enabled(options, "key_lookup") || options.catalog.default_schema != SCHEMA {
                return false;
            }
        }
        self.own == SCHEMA && !self.registered.lock().contains_key(table)
    }

    /// The statement's `values` with `params` bound and its literals typed
    /// (once, into `typed`); `None` when the parameters do not match the
    /// placeholders (the general path says how) or a literal is not plain.
    pub(super) fn bound_values<'a>(
        &self,
        values: &[RowValue],
        typed: &'a Typed,
        params: &'a [ScalarValue],
    ) -> Option<Vec<&'a ScalarValue>> {
        let used: std::collections::BTreeSet<usize> = values
            .iter()
            .filter_map(|v| match v {
                RowValue::Param(p) => Some(*p),
                RowValue::Literal(_) => None,
            })
            .collect();
        if used.len() != params.len() || used.last().is_some_and(|&last| last >= params.len()) {
            return None;
        }
        let typed = typed.get_or_init(|| self.typed_values(values)).as_ref()?;
        values
            .iter()
            .zip(typed)
            .map(|(value, literal)| match value {
                RowValue::Param(p) => Some(&params[*p]),
                RowValue::Literal(_) => literal.as_ref(),
            })
            .collect()
    }
}
