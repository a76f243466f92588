//! Joins `USING (c, ...)` planned as SQL means them, rewritten in the parsed
//! statement before DataFusion plans it.
//!
//! In `a LEFT JOIN b USING (c)`, the column `c` appears once: for an inner
//! or left join it is `a.c`, for a right join `b.c`, for a full join
//! `COALESCE(a.c, b.c)`, at `a`'s position in `SELECT *` (as SQLite and
//! DuckDB place it). DataFusion kept whichever side's `c` sorted first by
//! table name in `*` (`customers.c`, NULL for every unmatched row of
//! `orders LEFT JOIN customers`), at the other side's position, and took an
//! unqualified `c` from the left even in right and full joins: rows with
//! wrong values and no error.
//!
//! Each such join becomes `ON a.c = b.c` (the merged `c` of earlier joins on
//! the left), and in the same SELECT every unqualified `c` (select list,
//! WHERE, GROUP BY, HAVING, later ON conditions, and the ORDER BY unless a
//! select item is named `c` by the user) becomes the merged expression,
//! and `*` becomes each table's `t.*`, with `REPLACE (merged AS c)` on the
//! first holder of `c` and `EXCLUDE (c)` on the others. Qualified
//! references (`b.c`) keep the side's own value. Subqueries are rewritten
//! on their own; an unqualified `c` inside one that means the outer merged
//! column stays ambiguous (an error, never a wrong value).
//!
//! `NATURAL` joins first become joins `USING` their common columns
//! ([`resolve_natural`]), found by planning each side alone.
//!
//! A join this cannot follow without knowing the tables' columns (a side
//! without a name to qualify by, two sides whose names end alike (`s.t`
//! and `t`), a using column not yet merged on a left
//! side of several tables, a wildcard with options, a right semi or anti
//! join) is left as it was.

use datafusion::execution::SessionState;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart, OrderByKind,
    Query, Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr, TableFactor, TableWithJoins, VisitMut,
    VisitorMut, WildcardAdditionalOptions,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::collections::HashMap;
use std::ops::ControlFlow;

/// Turns each `NATURAL` join of `statement` into a join `USING` the columns
/// both sides have (their columns learnt by planning each side alone), so
/// that [`rewrite`] gives it the same meaning. A side that cannot be
/// planned alone (a lateral reference) leaves its join as it was.
pub async fn resolve_natural(statement: &mut DFStatement, state: &SessionState) {
    // Pass 1: the text of each natural join's two sides, in visiting order.
    struct Sides(Vec<(String, String)>);
    impl VisitorMut for Sides {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            if let SetExpr::Select(select) = query.body.as_mut() {
                for twj in &select.from {
                    for (j, join) in twj.joins.iter().enumerate() {
                        if matches!(constraint_ref(&join.join_operator), Some(JoinConstraint::Natural)) {
                            let left =
                                TableWithJoins { relation: twj.relation.clone(), joins: twj.joins[..j].to_vec() };
                            self.0.push((format!("SELECT * FROM {left}"), format!("SELECT * FROM {}", join.relation)));
                        }
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let DFStatement::Statement(inner) = statement else { return };
    let mut sides = Sides(Vec::new());
    let _ = inner.visit(&mut sides);
    if sides.0.is_empty() {
        return;
    }
    let mut columns = Vec::with_capacity(sides.0.len());
    for (left, right) in &sides.0 {
        let names = |sql: &str| {
            let sql = sql.to_string();
            async move {
                let plan = state.create_logical_plan(&sql).await.ok()?;
                Some(plan.schema().fields().iter().map(|f| f.name().clone()).collect::<Vec<_>>())
            }
        };
        columns.push(match (names(left).await, names(right).await) {
            (Some(l), Some(r)) => {
                Some(l.into_iter().filter(|n| r.contains(n)).fold(Vec::new(), |mut acc: Vec<String>, n| {
                    if !acc.contains(&n) {
                        acc.push(n);
                    }
                    acc
                }))
            }
            _ => None,
        });
    }
    // Pass 2: the same joins, in the same order, get their USING lists.
    struct Using(std::vec::IntoIter<Option<Vec<String>>>);
    impl VisitorMut for Using {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            if let SetExpr::Select(select) = query.body.as_mut() {
                for twj in &mut select.from {
                    for join in &mut twj.joins {
                        let Some(constraint) = constraint_of(&mut join.join_operator) else { continue };
                        if !matches!(constraint, JoinConstraint::Natural) {
                            continue;
                        }
                        match self.0.next().flatten() {
                            Some(common) if !common.is_empty() => {
                                let quoted = common
                                    .into_iter()
                                    .map(|n| ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote('"', n))]));
                                *constraint = JoinConstraint::Using(quoted.collect());
                            }
                            _ => {}
                        }
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = inner.visit(&mut Using(columns.into_iter()));
}

/// Rewrites every `JOIN ... USING` of `statement` (see the module documentation).
pub fn rewrite(statement: &mut DFStatement) {
    struct Rewrite;
    impl VisitorMut for Rewrite {
        type Break = ();
        fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            let order_by = query.order_by.as_mut().and_then(|o| match &mut o.kind {
                OrderByKind::Expressions(exprs) => Some(exprs),
                OrderByKind::All(_) => None,
            });
            match query.body.as_mut() {
                SetExpr::Select(select) => {
                    rewrite_select(select, order_by.map(|o| o.iter_mut().map(|e| &mut e.expr).collect()))
                }
                other => each_select(other),
            }
            ControlFlow::Continue(())
        }
    }
    match statement {
        DFStatement::Statement(s) => {
            let _ = s.visit(&mut Rewrite);
        }
        DFStatement::Explain(explain) => rewrite(&mut explain.statement),
        _ => {}
    }
}

/// The SELECTs of a set operation (whose ORDER BY is the whole operation's).
fn each_select(set: &mut SetExpr) {
    match set {
        SetExpr::Select(select) => rewrite_select(select, None),
        SetExpr::SetOperation { left, right, .. } => {
            each_select(left);
            each_select(right);
        }
        _ => {}
    }
}

/// How a join keeps the rows of its sides.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Inner,
    Left,
    Right,
    Full,
    /// Semi and anti joins: only the left side's columns remain.
    LeftOnly,
}

/// One table of a FROM list, for `*`: its qualifier and what its `t.*` replaces or leaves out.
struct Part {
    qualifier: Vec<Ident>,
    replace: Vec<(Ident, Expr)>,
    exclude: Vec<Ident>,
}

/// A merged using column: its expression and which part holds it first.
struct Merged {
    name: Ident,
    value: Expr,
    holder: usize,
}

fn rewrite_select(select: &mut Select, order_by: Option<Vec<&mut Expr>>) {
    let Some(plan) = plan(select) else { return };
    if plan.merged.is_empty() {
        return;
    }
    let merged: HashMap<String, Expr> = plan.merged.iter().map(|m| (normal(&m.name), m.value.clone())).collect();
    // The joins: USING becomes ON; later ON conditions see merged columns.
    for (t, twj) in select.from.iter_mut().enumerate() {
        for (j, join) in twj.joins.iter_mut().enumerate() {
            let Some(constraint) = constraint_of(&mut join.join_operator) else { continue };
            if let Some(on) = plan.conditions.get(&(t, j)) {
                *constraint = JoinConstraint::On(on.clone());
            } else if let JoinConstraint::On(on) = constraint {
                if plan.first_using.get(&t).is_some_and(|&first| j > first) {
                    replace_in(on, &merged);
                }
            }
        }
    }
    let user_names: Vec<String> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(normal(alias)),
            _ => None,
        })
        .collect();
    let mut projection = Vec::with_capacity(select.projection.len());
    for item in select.projection.drain(..) {
        match item {
            SelectItem::Wildcard(_) => projection.extend(plan.parts.iter().map(qualified_wildcard)),
            SelectItem::UnnamedExpr(Expr::Identifier(id)) if merged.contains_key(&normal(&id)) => {
                projection.push(SelectItem::ExprWithAlias { expr: merged[&normal(&id)].clone(), alias: id })
            }
            SelectItem::UnnamedExpr(mut expr) => {
                replace_in(&mut expr, &merged);
                projection.push(SelectItem::UnnamedExpr(expr));
            }
            SelectItem::ExprWithAlias { mut expr, alias } => {
                replace_in(&mut expr, &merged);
                projection.push(SelectItem::ExprWithAlias { expr, alias });
            }
            other => projection.push(other),
        }
    }
    select.projection = projection;
    if let Some(selection) = &mut select.selection {
        replace_in(selection, &merged);
    }
    if let Some(having) = &mut select.having {
        replace_in(having, &merged);
    }
    if let GroupByExpr::Expressions(exprs, _) = &mut select.group_by {
        exprs.iter_mut().for_each(|e| replace_in(e, &merged));
    }
    if let Some(order_by) = order_by {
        let visible: HashMap<String, Expr> =
            merged.into_iter().filter(|(name, _)| !user_names.contains(name)).collect();
        for expr in order_by {
            replace_in(expr, &visible);
        }
    }
}

/// What rewriting `select` means, or `None` when it cannot be followed
/// (then nothing changes).
struct Plan {
    merged: Vec<Merged>,
    parts: Vec<Part>,
    /// (FROM item, join) -> the ON condition that replaces its USING.
    conditions: HashMap<(usize, usize), Expr>,
    /// FROM item -> its first USING join.
    first_using: HashMap<usize, usize>,
}

fn plan(select: &Select) -> Option<Plan> {
    let mut plan =
        Plan { merged: Vec::new(), parts: Vec::new(), conditions: HashMap::new(), first_using: HashMap::new() };
    let mut all_named = true;
    // Each FROM item's qualifier must name it alone: `t.k` would also match
    // `s.t` (or an alias `t`), and `s.t.k = t.k` then compares a column
    // with itself.
    let mut names: Vec<String> = Vec::new();
    for twj in &select.from {
        for factor in std::iter::once(&twj.relation).chain(twj.joins.iter().map(|j| &j.relation)) {
            if let Some(last) = qualifier(factor).and_then(|q| q.last().map(normal)) {
                if names.contains(&last) {
                    return None;
                }
                names.push(last);
            }
        }
    }
    for (t, twj) in select.from.iter().enumerate() {
        let uses = twj.joins.iter().any(|j| matches!(constraint_ref(&j.join_operator), Some(JoinConstraint::Using(_))));
        let Some(first) = qualifier(&twj.relation) else {
            if uses {
                return None;
            }
            all_named = false;
            continue;
        };
        let base = plan.parts.len();
        plan.parts.push(Part { qualifier: first, replace: Vec::new(), exclude: Vec::new() });
        let mut local: Vec<Merged> = Vec::new();
        for (j, join) in twj.joins.iter().enumerate() {
            let right = qualifier(&join.relation);
            let Some(JoinConstraint::Using(columns)) = constraint_ref(&join.join_operator) else {
                match right {
                    Some(q) if !matches!(kind_of(&join.join_operator), Some(Kind::LeftOnly)) => {
                        plan.parts.push(Part { qualifier: q, replace: Vec::new(), exclude: Vec::new() })
                    }
                    Some(_) => {}
                    None => all_named = false,
                }
                continue;
            };
            let kind = kind_of(&join.join_operator)?;
            let right = right?;
            plan.first_using.entry(t).or_insert(j);
            let mut conditions = Vec::new();
            let mut excluded = Vec::new();
            for column in columns {
                let [ObjectNamePart::Identifier(name)] = column.0.as_slice() else { return None };
                let key = normal(name);
                let existing = local.iter().position(|m| normal(&m.name) == key);
                let left = match existing {
                    Some(at) => local[at].value.clone(),
                    None if plan.parts.len() == base + 1 => qualified(&plan.parts[base].qualifier, name),
                    // On a left side of several tables, which one has it is unknown here.
                    None => return None,
                };
                let theirs = qualified(&right, name);
                conditions.push(Expr::BinaryOp {
                    left: Box::new(left.clone()),
                    op: BinaryOperator::Eq,
                    right: Box::new(theirs.clone()),
                });
                let value = match kind {
                    Kind::Inner | Kind::Left | Kind::LeftOnly => left,
                    Kind::Right => theirs,
                    Kind::Full => coalesce(&left, &theirs)?,
                };
                match existing {
                    Some(at) => local[at].value = value,
                    None => local.push(Merged { name: name.clone(), value, holder: base }),
                }
                excluded.push(name.clone());
            }
            let condition = conditions.into_iter().reduce(|a, b| Expr::BinaryOp {
                left: Box::new(a),
                op: BinaryOperator::And,
                right: Box::new(b),
            })?;
            plan.conditions.insert((t, j), condition);
            if kind != Kind::LeftOnly {
                plan.parts.push(Part { qualifier: right, replace: Vec::new(), exclude: excluded });
            }
        }
        for m in &local {
            plan.parts[m.holder].replace.push((m.name.clone(), m.value.clone()));
        }
        plan.merged.extend(local);
    }
    let wildcard = select.projection.iter().find_map(|item| match item {
        SelectItem::Wildcard(options) => Some(options),
        _ => None,
    });
    if let Some(options) = wildcard {
        let plain = options.opt_ilike.is_none()
            && options.opt_exclude.is_none()
            && options.opt_except.is_none()
            && options.opt_replace.is_none()
            && options.opt_rename.is_none()
            && options.opt_alias.is_none();
        if !plain || !all_named {
            return None;
        }
    }
    Some(plan)
}

/// The constraint of a join operator that has one (`$op` by reference or by
/// mutable reference).
macro_rules! constraint {
    ($op:expr) => {
        match $op {
            JoinOperator::Join(c)
            | JoinOperator::Inner(c)
            | JoinOperator::Left(c)
            | JoinOperator::LeftOuter(c)
            | JoinOperator::Right(c)
            | JoinOperator::RightOuter(c)
            | JoinOperator::FullOuter(c)
            | JoinOperator::CrossJoin(c)
            | JoinOperator::Semi(c)
            | JoinOperator::LeftSemi(c)
            | JoinOperator::RightSemi(c)
            | JoinOperator::Anti(c)
            | JoinOperator::LeftAnti(c)
            | JoinOperator::RightAnti(c)
            | JoinOperator::StraightJoin(c) => Some(c),
            JoinOperator::AsOf { constraint, .. } => Some(constraint),
            _ => None,
        }
    };
}

fn constraint_ref(op: &JoinOperator) -> Option<&JoinConstraint> {
    constraint!(op)
}

fn constraint_of(op: &mut JoinOperator) -> Option<&mut JoinConstraint> {
    constraint!(op)
}

/// The kind of a join this rewrite follows (`None`: one it leaves alone).
fn kind_of(op: &JoinOperator) -> Option<Kind> {
    Some(match op {
        JoinOperator::Join(_) | JoinOperator::Inner(_) | JoinOperator::StraightJoin(_) => Kind::Inner,
        JoinOperator::Left(_) | JoinOperator::LeftOuter(_) => Kind::Left,
        JoinOperator::Right(_) | JoinOperator::RightOuter(_) => Kind::Right,
        JoinOperator::FullOuter(_) => Kind::Full,
        JoinOperator::Semi(_) | JoinOperator::LeftSemi(_) | JoinOperator::Anti(_) | JoinOperator::LeftAnti(_) => {
            Kind::LeftOnly
        }
        _ => return None,
    })
}

/// The name a FROM item's columns are qualified by, if it has one.
fn qualifier(factor: &TableFactor) -> Option<Vec<Ident>> {
    let alias = match factor {
        TableFactor::Table { name, alias: None, .. } => return name.0.iter().map(|p| p.as_ident().cloned()).collect(),
        TableFactor::Table { alias, .. }
        | TableFactor::Derived { alias, .. }
        | TableFactor::TableFunction { alias, .. }
        | TableFactor::Function { alias, .. }
        | TableFactor::UNNEST { alias, .. } => alias.as_ref()?,
        _ => return None,
    };
    Some(vec![alias.name.clone()])
}

fn qualified(qualifier: &[Ident], name: &Ident) -> Expr {
    Expr::CompoundIdentifier(qualifier.iter().cloned().chain(std::iter::once(name.clone())).collect())
}

fn coalesce(a: &Expr, b: &Expr) -> Option<Expr> {
    Parser::new(&GenericDialect).try_with_sql(&format!("COALESCE({a}, {b})")).ok()?.parse_expr().ok()
}

/// `t.* [REPLACE (...)] [EXCLUDE (...)]` of one part.
fn qualified_wildcard(part: &Part) -> SelectItem {
    let name = ObjectName(part.qualifier.iter().cloned().map(ObjectNamePart::Identifier).collect());
    let mut text = format!("SELECT {name}.*");
    if !part.exclude.is_empty() {
        text += &format!(" EXCLUDE ({})", part.exclude.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    }
    if !part.replace.is_empty() {
        text += &format!(
            " REPLACE ({})",
            part.replace.iter().map(|(n, e)| format!("{e} AS {n}")).collect::<Vec<_>>().join(", ")
        );
    }
    let parsed = Parser::new(&GenericDialect).try_with_sql(&text).and_then(|mut p| p.parse_query());
    match parsed.ok().map(|q| *q.body) {
        Some(SetExpr::Select(mut select)) if select.projection.len() == 1 => select.projection.remove(0),
        _ => SelectItem::QualifiedWildcard(
            SelectItemQualifiedWildcardKind::ObjectName(name),
            WildcardAdditionalOptions::default(),
        ),
    }
}

/// An identifier as the planner compares it: unquoted ones in lower case.
fn normal(ident: &Ident) -> String {
    if ident.quote_style.is_none() {
        ident.value.to_lowercase()
    } else {
        ident.value.clone()
    }
}

/// Replaces each unqualified reference to a merged column in `expr` (not
/// inside subqueries, which have their own scope).
fn replace_in(expr: &mut Expr, merged: &HashMap<String, Expr>) {
    struct Replace<'a> {
        merged: &'a HashMap<String, Expr>,
        depth: usize,
    }
    impl VisitorMut for Replace<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if self.depth == 0 {
                if let Expr::Identifier(id) = expr {
                    if let Some(value) = self.merged.get(&normal(id)) {
                        *expr = value.clone();
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    if !merged.is_empty() {
        let _ = expr.visit(&mut Replace { merged, depth: 0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::parser::DFParser;

    fn rewritten(sql: &str) -> String {
        let mut statement = DFParser::parse_sql(sql).unwrap().pop_front().unwrap();
        rewrite(&mut statement);
        statement.to_string()
    }

    #[test]
    fn using_becomes_on_with_the_merged_column_where_it_is_unqualified() {
        assert_eq!(
            rewritten("SELECT * FROM a LEFT JOIN b USING (k) WHERE k > 1 ORDER BY k"),
            "SELECT a.* REPLACE (a.k AS k), b.* EXCLUDE (k) FROM a LEFT JOIN b ON a.k = b.k WHERE a.k > 1 ORDER BY a.k"
        );
        assert_eq!(
            rewritten("SELECT k, b.k, count(*) FROM a FULL JOIN b USING (k) GROUP BY k, b.k"),
            "SELECT COALESCE(a.k, b.k) AS k, b.k, count(*) FROM a FULL JOIN b ON a.k = b.k GROUP BY COALESCE(a.k, b.k), b.k"
        );
        assert_eq!(
            rewritten("SELECT k FROM a x RIGHT JOIN b y USING (k) JOIN c USING (k)"),
            "SELECT y.k AS k FROM a x RIGHT JOIN b y ON x.k = y.k JOIN c ON y.k = c.k"
        );
    }

    #[test]
    fn joins_it_cannot_follow_are_left_alone() {
        for sql in [
            "SELECT * FROM a JOIN b ON a.x = b.x JOIN c USING (k)",
            "SELECT * FROM (SELECT 1 AS k) JOIN b USING (k)",
            "SELECT * EXCLUDE (z) FROM a JOIN b USING (k)",
            "SELECT * FROM a JOIN b ON a.k = b.k",
            "SELECT count(*) FROM s.t JOIN t USING (a)",
            "SELECT * FROM a AS t JOIN t USING (k)",
        ] {
            let once = rewritten(sql);
            assert_eq!(once, DFParser::parse_sql(sql).unwrap().pop_front().unwrap().to_string(), "{sql}");
        }
    }
}
