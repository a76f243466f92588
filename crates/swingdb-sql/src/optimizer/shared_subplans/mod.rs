//! Repeated subplans computed once. A query that uses the same costly result
//! twice (a CTE or view referenced twice, as in TPC-H Q15's `revenue0`, or the
//! same derived table written out twice) is planned by DataFusion as two
//! copies, each computed in full. DuckDB and PostgreSQL materialize a CTE used
//! more than once; here any subtree of the final logical plan that appears
//! more than once and does real work (an aggregate, window, join or DISTINCT)
//! is wrapped in a [`SharedPlan`] node: its first use to run computes it and
//! keeps the rows, the others read them.
//!
//! Why the copies compute the same rows: sharing is decided on the plan the
//! logical optimizer hands to the physical planner, where two structurally
//! equal subtrees are the same computation, unless they call a volatile
//! function (`random()`, Python functions: never shared), read outer columns
//! (correlated: never shared) or sit in a recursive query (re-run per
//! iteration: nothing is shared in such plans). Below the wrapper, DataFusion's
//! physical rules see each copy on its own and no requirement, filter,
//! projection, sort or limit of the parent passes through it (see
//! [`exec::SharedExec`]), so each copy is planned as it would be alone.

mod exec;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{internal_err, DFSchemaRef, Result};
use datafusion::logical_expr::{Expr, Extension, LogicalPlan, UserDefinedLogicalNodeCore};
pub use exec::{SharedExec, SharedPlanner, SharedRows};
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

/// A subplan used `uses` times in its query, computed once: every node with
/// the same `rows` reads one result.
#[derive(Debug, Clone)]
pub struct SharedPlan {
    /// The subplan.
    pub input: LogicalPlan,
    /// The result all uses share.
    rows: Arc<SharedRows>,
    /// How many nodes of the query share it.
    uses: usize,
}

impl PartialEq for SharedPlan {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.rows, &other.rows) && self.input == other.input
    }
}

impl Eq for SharedPlan {}

impl Hash for SharedPlan {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.rows.id.hash(state);
        self.input.hash(state);
    }
}

impl PartialOrd for SharedPlan {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.rows.id.partial_cmp(&other.rows.id)
    }
}

impl UserDefinedLogicalNodeCore for SharedPlan {
    fn name(&self) -> &str {
        "SharedPlan"
    }

    fn inputs(&self) -> Vec<&LogicalPlan> {
        vec![&self.input]
    }

    fn schema(&self) -> &DFSchemaRef {
        self.input.schema()
    }

    fn expressions(&self) -> Vec<Expr> {
        Vec::new()
    }

    /// No filter passes into one use: every column is kept from pushdown.
    fn prevent_predicate_push_down_columns(&self) -> HashSet<String> {
        self.input.schema().fields().iter().map(|f| f.name().clone()).collect()
    }

    fn fmt_for_explain(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "SharedPlan: computed once for {} uses (#{})", self.uses, self.rows.id)
    }

    fn with_exprs_and_inputs(&self, _exprs: Vec<Expr>, mut inputs: Vec<LogicalPlan>) -> Result<Self> {
        let Some(input) = inputs.pop() else { return internal_err!("SharedPlan needs one input") };
        Ok(Self { input, rows: self.rows.clone(), uses: self.uses })
    }
}

/// Numbers shared results for EXPLAIN.
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// `plan` (optimized) with every repeated costly subtree wrapped in a
/// [`SharedPlan`] node shared by its copies (see the module's doc).
pub fn share_repeated(plan: LogicalPlan) -> Result<LogicalPlan> {
    let mut recursive = false;
    plan.apply_with_subqueries(|node| {
        recursive = matches!(node, LogicalPlan::RecursiveQuery(_));
        Ok(if recursive { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Continue })
    })?;
    if recursive {
        return Ok(plan);
    }
    // Every shareable subtree, counted wherever it occurs.
    let mut occurrences = HashMap::new();
    count(&plan, &mut |node| {
        *occurrences.entry(node.clone()).or_insert(0usize) += 1;
        true
    })?;
    occurrences.retain(|_, n| *n > 1);
    if occurrences.is_empty() {
        return Ok(plan);
    }
    // Uses that would run: inside the second and later copies of a repeated
    // subtree nothing runs (they read the first copy's rows), so a subtree
    // repeated only because its parent is counts once.
    let mut uses = HashMap::new();
    let mut entered = HashSet::new();
    count(&plan, &mut |node| {
        if !occurrences.contains_key(node) {
            return true;
        }
        *uses.entry(node.clone()).or_insert(0usize) += 1;
        entered.insert(node.clone())
    })?;
    uses.retain(|_, n| *n > 1);
    if uses.is_empty() {
        return Ok(plan);
    }
    let mut sharing = Sharing { uses, rows: HashMap::new(), entered: HashSet::new() };
    sharing.wrap(plan)
}

/// Whether `node` is worth computing once for several uses: it does work
/// beyond reading and filtering, and its rows depend on its tables only.
fn shareable(node: &LogicalPlan) -> bool {
    let costly = matches!(
        node,
        LogicalPlan::Aggregate(_) | LogicalPlan::Window(_) | LogicalPlan::Join(_) | LogicalPlan::Distinct(_)
    );
    costly && !depends_on_more_than_tables(node)
}

/// Whether any node of `plan` (subqueries included) calls a volatile function
/// or reads a column of an outer query.
fn depends_on_more_than_tables(plan: &LogicalPlan) -> bool {
    let mut found = false;
    let walked = plan.apply_with_subqueries(|node| {
        node.apply_expressions(|expr| {
            found = expr.is_volatile() || expr.contains_outer();
            Ok(if found { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Continue })
        })
    });
    found || walked.is_err()
}

/// Calls `visit` on each shareable subtree of `plan`, parents first, into
/// subqueries; a subtree's children are visited only if `visit` returns true.
fn count(plan: &LogicalPlan, visit: &mut dyn FnMut(&LogicalPlan) -> bool) -> Result<()> {
    if shareable(plan) && !visit(plan) {
        return Ok(());
    }
    plan.apply_children(|child| count(child, visit).map(|()| TreeNodeRecursion::Continue))?;
    plan.apply_subqueries(|subquery| count(subquery, visit).map(|()| TreeNodeRecursion::Continue))?;
    Ok(())
}

/// Wraps the repeated subtrees of one plan.
struct Sharing {
    /// How many uses each repeated subtree has.
    uses: HashMap<LogicalPlan, usize>,
    /// The result each repeated subtree's copies share.
    rows: HashMap<LogicalPlan, Arc<SharedRows>>,
    /// Repeated subtrees whose first copy was wrapped (the same order as
    /// [`count`], so it is the copy whose inner repeats were counted).
    entered: HashSet<LogicalPlan>,
}

impl Sharing {
    fn wrap(&mut self, plan: LogicalPlan) -> Result<LogicalPlan> {
        if let Some(&uses) = self.uses.get(&plan) {
            let rows = self
                .rows
                .entry(plan.clone())
                .or_insert_with(|| Arc::new(SharedRows::new(NEXT_ID.fetch_add(1, AtomicOrdering::Relaxed))))
                .clone();
            let input = if self.entered.insert(plan.clone()) { self.wrap_inside(plan)? } else { plan };
            let node = SharedPlan { input, rows, uses };
            return Ok(LogicalPlan::Extension(Extension { node: Arc::new(node) }));
        }
        self.wrap_inside(plan)
    }

    fn wrap_inside(&mut self, plan: LogicalPlan) -> Result<LogicalPlan> {
        let plan = plan.map_children(|child| self.wrap(child).map(Transformed::yes))?.data;
        Ok(plan.map_subqueries(|subquery| self.wrap(subquery).map(Transformed::yes))?.data)
    }
}
