//! The logical plan node of a subquery evaluated once per distinct outer key:
//! its input's rows pass through with one more column, the subquery's answer
//! (a value, or whether a row exists, or a comparison with its rows) for the
//! values of the outer columns the subquery reads.

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::common::{internal_err, Column, DFSchema, DFSchemaRef, Result};
use datafusion::logical_expr::expr::{Exists, InSubquery, SetComparison, SetQuantifier};
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, Operator, Subquery, UserDefinedLogicalNodeCore};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// What a [`PerKeySubquery`] asks of the subquery's rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Question {
    /// `(SELECT ...)`: its only value; NULL without rows; more than one row is an error.
    Value,
    /// `[NOT] EXISTS (SELECT ...)`.
    Exists { negated: bool },
    /// `expr op ANY|ALL (SELECT ...)`, also `expr [NOT] IN (SELECT ...)` (`= ANY`),
    /// with SQL's NULL rules; `negated` is a NOT around the whole test.
    Compare { expr: Box<Expr>, op: Operator, all: bool, negated: bool },
}

/// A subquery expression planned as "run the subquery for each distinct value
/// of the outer columns it reads", adding its answer as column `name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PerKeySubquery {
    /// The rows the subquery is evaluated for.
    pub input: LogicalPlan,
    /// The subquery, with `OuterReferenceColumn`s for the input's columns.
    pub subquery: Subquery,
    /// The outer columns the subquery reads (its key), in the input.
    pub keys: Vec<Column>,
    /// What is asked of the subquery's rows.
    pub question: Question,
    /// The added column.
    pub name: String,
    schema: DFSchemaRef,
}

impl PerKeySubquery {
    /// Plans `expr` (a subquery expression over `input`) as column `name`.
    /// Returns `None` for expressions that are not subqueries.
    pub fn try_new(input: LogicalPlan, expr: &Expr, name: String) -> Result<Option<Self>> {
        let (subquery, question) = match expr {
            Expr::ScalarSubquery(subquery) => (subquery.clone(), Question::Value),
            Expr::Exists(Exists { subquery, negated }) => (subquery.clone(), Question::Exists { negated: *negated }),
            Expr::InSubquery(InSubquery { expr, subquery, negated }) => (
                subquery.clone(),
                Question::Compare { expr: expr.clone(), op: Operator::Eq, all: false, negated: *negated },
            ),
            Expr::SetComparison(SetComparison { expr, subquery, op, quantifier }) => (
                subquery.clone(),
                Question::Compare {
                    expr: expr.clone(),
                    op: *op,
                    all: matches!(quantifier, SetQuantifier::All),
                    negated: false,
                },
            ),
            _ => return Ok(None),
        };
        let mut keys = Vec::new();
        outer_keys(&subquery.subquery, input.schema(), &HashSet::new(), &mut keys)?;
        Self::build(input, subquery, keys, question, name).map(Some)
    }

    fn build(
        input: LogicalPlan,
        subquery: Subquery,
        keys: Vec<Column>,
        question: Question,
        name: String,
    ) -> Result<Self> {
        for key in &keys {
            if !input.schema().has_column(key) {
                return internal_err!("correlated subquery reads {key}, which its input does not have");
            }
        }
        let data_type = match &question {
            Question::Value => match subquery.subquery.schema().fields().first() {
                Some(field) => field.data_type().clone(),
                None => return internal_err!("scalar subquery without a column"),
            },
            Question::Exists { .. } | Question::Compare { .. } => DataType::Boolean,
        };
        if let Question::Compare { expr, .. } = &question {
            expr.get_type(input.schema())?;
        }
        let mut fields: Vec<_> =
            input.schema().iter().map(|(qualifier, field)| (qualifier.cloned(), field.clone())).collect();
        fields.push((None, Arc::new(Field::new(&name, data_type, true))));
        let schema = DFSchema::new_with_metadata(fields, input.schema().metadata().clone())?;
        Ok(Self { input, subquery, keys, question, name, schema: Arc::new(schema) })
    }
}

impl PartialOrd for PerKeySubquery {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        // Plans compare nodes only to spot changes; the name is unique per node.
        self.name.partial_cmp(&other.name)
    }
}

impl UserDefinedLogicalNodeCore for PerKeySubquery {
    fn name(&self) -> &str {
        "PerKeySubquery"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        &self.schema
    }

    /// The keys as columns, then the compared expression if any: what the node
    /// reads of its input.
    fn expressions(&self) -> Vec<Expr> {
        let mut exprs: Vec<Expr> = self.keys.iter().cloned().map(Expr::Column).collect();
        if let Question::Compare { expr, .. } = &self.question {
            exprs.push(expr.as_ref().clone());
        }
        exprs
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "PerKeySubquery: {} = subquery run once per distinct ({})", self.name, key_list(&self.keys))
    }

    fn with_exprs_and_inputs(&self, mut exprs: Vec<Expr>, mut inputs: Vec<LogicalPlan>) -> Result<Self> {
        let Some(input) = inputs.pop() else { return internal_err!("PerKeySubquery needs one input") };
        let question = match &self.question {
            Question::Compare { op, all, negated, .. } => match exprs.pop() {
                Some(expr) => Question::Compare { expr: Box::new(expr), op: *op, all: *all, negated: *negated },
                None => return internal_err!("PerKeySubquery lost its compared expression"),
            },
            other => other.clone(),
        };
        let keys = exprs
            .into_iter()
            .map(|expr| match expr {
                Expr::Column(column) => Ok(column),
                other => internal_err!("PerKeySubquery key rewritten to {other}"),
            })
            .collect::<Result<Vec<_>>>()?;
        Self::build(input, self.subquery.clone(), keys, question, self.name.clone())
    }
}

/// Adds to `keys` the columns of `outer` that `plan` reads as outer references,
/// also from its own subqueries, unless a query in between has a column of the
/// same name (`shadowed`), which is then the one meant.
pub fn outer_keys(
    plan: &LogicalPlan,
    outer: &DFSchema,
    shadowed: &HashSet<Column>,
    keys: &mut Vec<Column>,
) -> Result<()> {
    let inner_shadowed = with_own_columns(plan, shadowed)?;
    plan.apply(|node| {
        node.apply_expressions(|expr| {
            expr.apply(|e| {
                match e {
                    Expr::OuterReferenceColumn(_, column)
                        if !shadowed.contains(column) && outer.has_column(column) && !keys.contains(column) =>
                    {
                        keys.push(column.clone())
                    }
                    Expr::ScalarSubquery(subquery)
                    | Expr::Exists(Exists { subquery, .. })
                    | Expr::InSubquery(InSubquery { subquery, .. })
                    | Expr::SetComparison(SetComparison { subquery, .. }) => {
                        outer_keys(&subquery.subquery, outer, &inner_shadowed, keys)?
                    }
                    _ => {}
                }
                Ok(TreeNodeRecursion::Continue)
            })
        })
    })?;
    Ok(())
}

/// `shadowed` plus the columns `plan`'s own query can name (its nodes' columns,
/// not those hidden under an alias such as `FROM t1 AS x`): the names a
/// subquery nested in `plan` resolves to `plan` first.
pub fn with_own_columns(plan: &LogicalPlan, shadowed: &HashSet<Column>) -> Result<HashSet<Column>> {
    let mut columns = shadowed.clone();
    plan.apply(|node| {
        columns.extend(node.schema().columns());
        Ok(match node {
            LogicalPlan::SubqueryAlias(_) => TreeNodeRecursion::Jump,
            _ => TreeNodeRecursion::Continue,
        })
    })?;
    Ok(columns)
}

/// `t1.a, t1.b` (or `no outer columns`), for plans.
pub fn key_list(keys: &[Column]) -> String {
    if keys.is_empty() {
        return "no outer columns".into();
    }
    keys.iter().map(|key| key.flat_name()).collect::<Vec<_>>().join(", ")
}
