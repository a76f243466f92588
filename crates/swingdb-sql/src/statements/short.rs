//! Which short statement a SQL text is (see `shapes.rs`), remembered per
//! text, and the literals of one typed as the general path types them.

use super::shapes::{recognize, RowValue, Short, MAX_TEXT, REMEMBERED};
use super::Executor;
use datafusion::common::{DFSchema, ScalarValue};

impl Executor {
    /// The short statement `sql` is, if it is one (remembered per text, for
    /// the last [`REMEMBERED`] texts). Fast inserts are recognized only
    /// while they are on (see [`Executor::set_fast_inserts`]).
    pub(crate) fn short_statement(&self, sql: &str) -> Option<Short> {
        let start = sql.trim_start().get(..6)?;
        if sql.len() > MAX_TEXT || !(start.eq_ignore_ascii_case("select") || start.eq_ignore_ascii_case("insert")) {
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
        match known? {
            Short::Insert(_) if !self.fast_inserts.load(std::sync::atomic::Ordering::Relaxed) => None,
            short => Some(short),
        }
    }

    /// `values` as the planner types them (`None` in place of each
    /// parameter); `None` if a literal does not plan to a plain literal.
    pub(super) fn typed_values(&self, values: &[RowValue]) -> Option<Vec<Option<ScalarValue>>> {
        let state = self.session().state();
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
}
