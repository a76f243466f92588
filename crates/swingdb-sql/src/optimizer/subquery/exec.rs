//! Executes a [`PerKeySubquery`]: for each batch of its input, the distinct
//! values of the outer columns not seen before each get the subquery planned
//! with those values in place of the outer references and run; the answers
//! are kept for later batches and become the added column.
//!
//! The cost is one plan and run of the subquery per distinct key: EXPLAIN shows
//! the node and which columns make the key, EXPLAIN ANALYZE how many runs it took.

use super::node::{key_list, with_own_columns, PerKeySubquery, Question};
use crate::operators::single_row::more_than_one_row;
use datafusion::arrow::array::{new_empty_array, Array, ArrayRef, BooleanArray, RecordBatch, Scalar};
use datafusion::arrow::compute::kernels::cmp;
use datafusion::arrow::compute::{cast, concat};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{internal_err, Column, Result, ScalarValue};
use datafusion::execution::context::SessionState;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::expr::{Exists, InSubquery, SetComparison};
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder, Operator, Subquery, UserDefinedLogicalNode};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    apply_expression_roots, collect, DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties,
    PlanProperties, SendableRecordBatchStream,
};
use datafusion::physical_planner::{ExtensionPlanner, PhysicalPlanner};
use futures::TryStreamExt;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use swingdb_storage::error::{Error, ErrorKind};

/// Plans [`PerKeySubquery`] nodes as [`PerKeySubqueryExec`].
#[derive(Debug, Default)]
pub struct PerKeySubqueryPlanner;

#[async_trait::async_trait]
impl ExtensionPlanner for PerKeySubqueryPlanner {
    async fn plan_extension(
        &self,
        planner: &dyn PhysicalPlanner,
        node: &dyn UserDefinedLogicalNode,
        logical_inputs: &[&LogicalPlan],
        physical_inputs: &[Arc<dyn ExecutionPlan>],
        session: &dyn datafusion::catalog::Session,
        planning_ctx: &datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext,
    ) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        let Some(node) = node.as_any().downcast_ref::<PerKeySubquery>() else { return Ok(None) };
        let (Some(logical_input), Some(input)) = (logical_inputs.first(), physical_inputs.first()) else {
            return internal_err!("PerKeySubquery without an input");
        };
        let Some(state) = session.as_any().downcast_ref::<SessionState>() else {
            return internal_err!("PerKeySubquery planned outside a SessionState");
        };
        let input_schema = logical_input.schema();
        let keys = node
            .keys
            .iter()
            .map(|key| planner.create_physical_expr(&Expr::Column(key.clone()), input_schema, session, planning_ctx))
            .collect::<Result<Vec<_>>>()?;
        let compared = match &node.question {
            Question::Compare { expr, .. } => {
                Some(planner.create_physical_expr(expr, input_schema, session, planning_ctx)?)
            }
            _ => None,
        };
        let schema: SchemaRef = Arc::new(node.schema().as_arrow().clone());
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            input.output_partitioning().clone(),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(Some(Arc::new(PerKeySubqueryExec {
            input: input.clone(),
            shared: Arc::new(Shared {
                node: node.clone(),
                keys,
                compared,
                state: state.clone(),
                answers: Mutex::new(HashMap::new()),
            }),
            schema,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        })))
    }
}

/// What one run of the subquery answered.
#[derive(Debug, Clone)]
enum Answer {
    Value(ScalarValue),
    Exists(bool),
    Rows(ArrayRef),
    /// The rows, hashed for `x IN (...)`.
    Members(Arc<Members>),
}

/// A subquery's rows hashed for `x IN (...)` / `x NOT IN (...)`: their values
/// in arrow's row format, which are equal exactly when the values are for the
/// types this is used for ([`hashable`]: not floats, whose -0.0 and 0.0 differ
/// there), so a test costs one lookup, not a pass over the rows.
#[derive(Debug)]
struct Members {
    values: HashSet<Box<[u8]>>,
    has_null: bool,
    empty: bool,
    data_type: DataType,
    converter: RowConverter,
}

impl Members {
    fn new(set: &ArrayRef) -> Result<Self> {
        let converter = RowConverter::new(vec![SortField::new(set.data_type().clone())])?;
        let rows = converter.convert_columns(std::slice::from_ref(set))?;
        let values = (0..set.len()).filter(|&i| set.is_valid(i)).map(|i| rows.row(i).as_ref().into()).collect();
        Ok(Self {
            values,
            has_null: set.null_count() > 0,
            empty: set.is_empty(),
            data_type: set.data_type().clone(),
            converter,
        })
    }

    /// `left[row] IN (the rows)` for each row, with SQL's NULL rules.
    fn contain(&self, left: &ArrayRef) -> Result<Vec<Option<bool>>> {
        let left = if left.data_type() == &self.data_type { left.clone() } else { cast(left, &self.data_type)? };
        let rows = self.converter.convert_columns(std::slice::from_ref(&left))?;
        Ok((0..left.len())
            .map(|i| match (self.empty, left.is_valid(i)) {
                (true, _) => Some(false),
                (false, false) => None,
                (false, true) if self.values.contains(rows.row(i).as_ref()) => Some(true),
                (false, true) => (!self.has_null).then_some(false),
            })
            .collect())
    }
}

/// Whether [`Members`] may hash values of `data_type`.
fn hashable(data_type: &DataType) -> bool {
    data_type.is_integer()
        || matches!(
            data_type,
            DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::Boolean
                | DataType::Date32
                | DataType::Date64
                | DataType::Timestamp(_, _)
                | DataType::Decimal128(_, _)
                | DataType::Decimal256(_, _)
        )
}

/// The part of the operator its streams share: how to run the subquery, and
/// the answers so far (keyed by the outer columns' values).
#[derive(Debug)]
struct Shared {
    node: PerKeySubquery,
    keys: Vec<Arc<dyn PhysicalExpr>>,
    compared: Option<Arc<dyn PhysicalExpr>>,
    state: SessionState,
    answers: Mutex<HashMap<Vec<ScalarValue>, Answer>>,
}

/// The physical operator of a [`PerKeySubquery`].
#[derive(Debug)]
pub struct PerKeySubqueryExec {
    input: Arc<dyn ExecutionPlan>,
    shared: Arc<Shared>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl DisplayAs for PerKeySubqueryExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "PerKeySubqueryExec: {} = subquery planned and run once per distinct ({})",
            self.shared.node.name,
            key_list(&self.shared.node.keys)
        )
    }
}

impl ExecutionPlan for PerKeySubqueryExec {
    fn name(&self) -> &str {
        "PerKeySubqueryExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        apply_expression_roots(self.shared.keys.iter().chain(self.shared.compared.iter()), f)
    }

    fn with_new_children(self: Arc<Self>, mut children: Vec<Arc<dyn ExecutionPlan>>) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(input) = children.pop() else { return internal_err!("PerKeySubqueryExec needs one input") };
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(self.schema.clone()),
            input.output_partitioning().clone(),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Ok(Arc::new(Self {
            input,
            shared: self.shared.clone(),
            schema: self.schema.clone(),
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        }))
    }

    fn execute(&self, partition: usize, context: Arc<TaskContext>) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, context.clone())?;
        let runs = MetricBuilder::new(&self.metrics).counter("subquery_runs", partition);
        let shared = self.shared.clone();
        let schema = self.schema.clone();
        let stream = input.and_then(move |batch| {
            let (shared, context, schema, runs) = (shared.clone(), context.clone(), schema.clone(), runs.clone());
            async move { shared.answer(batch, &schema, context, &runs).await }
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}

impl Shared {
    /// `batch` with the subquery's answer for each row appended.
    async fn answer(
        &self,
        batch: RecordBatch,
        schema: &SchemaRef,
        context: Arc<TaskContext>,
        runs: &Count,
    ) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let key_arrays =
            self.keys.iter().map(|key| key.evaluate(&batch)?.into_array(rows)).collect::<Result<Vec<_>>>()?;
        let keys = (0..rows)
            .map(|row| key_arrays.iter().map(|array| ScalarValue::try_from_array(array, row)).collect())
            .collect::<Result<Vec<Vec<ScalarValue>>>>()?;
        let missing: Vec<Vec<ScalarValue>> = {
            let answers = self.answers.lock();
            let mut seen = HashSet::new();
            keys.iter().filter(|key| !answers.contains_key(*key) && seen.insert(*key)).cloned().collect()
        };
        let mut found = Vec::with_capacity(missing.len());
        for key in missing {
            let answer = self.run(&key, context.clone()).await?;
            runs.add(1);
            found.push((key, answer));
        }
        let answers = {
            let mut answers = self.answers.lock();
            answers.extend(found);
            keys.iter().map(|key| answers[key].clone()).collect::<Vec<_>>()
        };
        let column = match &self.node.question {
            Question::Value => {
                let data_type = schema.field(schema.fields().len() - 1).data_type();
                let values = answers.into_iter().map(|answer| match answer {
                    Answer::Value(value) => value,
                    _ => ScalarValue::Null,
                });
                values_to_array(values, data_type, rows)?
            }
            Question::Exists { .. } => Arc::new(
                answers.iter().map(|answer| Some(matches!(answer, Answer::Exists(true)))).collect::<BooleanArray>(),
            ),
            Question::Compare { op, all, negated, .. } => {
                let Some(compared) = &self.compared else { return internal_err!("comparison without its expression") };
                let left = compared.evaluate(&batch)?.into_array(rows)?;
                let mut out = Vec::with_capacity(rows);
                // Hashed answers test the whole batch at once (cached per answer).
                let mut tested: HashMap<*const Members, Vec<Option<bool>>> = HashMap::new();
                for (row, answer) in answers.iter().enumerate() {
                    let truth = match answer {
                        Answer::Rows(set) => compare_with_set(&left, row, set, *op, *all)?,
                        Answer::Members(members) => match tested.entry(Arc::as_ptr(members)) {
                            std::collections::hash_map::Entry::Occupied(found) => found.get()[row],
                            std::collections::hash_map::Entry::Vacant(slot) => {
                                slot.insert(members.contain(&left)?)[row]
                            }
                        },
                        _ => return internal_err!("comparison answered without rows"),
                    };
                    out.push(if *negated { truth.map(|t| !t) } else { truth });
                }
                Arc::new(BooleanArray::from(out))
            }
        };
        let mut columns = batch.columns().to_vec();
        columns.push(column);
        Ok(RecordBatch::try_new(schema.clone(), columns)?)
    }

    /// Plans and runs the subquery for one key.
    async fn run(&self, key: &[ScalarValue], context: Arc<TaskContext>) -> Result<Answer> {
        let plan = bind_outer(self.node.subquery.subquery.as_ref().clone(), &self.node.keys, key, &HashSet::new())?;
        let plan = match &self.node.question {
            // Two rows are enough to tell "more than one"; one to tell "exists".
            Question::Value => LogicalPlanBuilder::from(plan).limit(0, Some(2))?.build()?,
            Question::Exists { .. } => LogicalPlanBuilder::from(plan).limit(0, Some(1))?.build()?,
            Question::Compare { .. } => plan,
        };
        let physical = self.state.create_physical_plan(&plan).await?;
        let batches = collect(physical, context).await?;
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        Ok(match &self.node.question {
            Question::Value => match rows {
                0 => Answer::Value(ScalarValue::Null),
                1 => {
                    let batch = batches.iter().find(|batch| batch.num_rows() > 0).expect("one row");
                    Answer::Value(ScalarValue::try_from_array(batch.column(0), 0)?)
                }
                _ => {
                    let values = key.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
                    return Err(more_than_one_row(Some(format!("{} = {values}", key_list(&self.node.keys)))).into());
                }
            },
            Question::Exists { negated } => Answer::Exists((rows > 0) != *negated),
            Question::Compare { op, all, .. } => {
                let columns: Vec<&dyn Array> = batches.iter().map(|batch| batch.column(0).as_ref()).collect();
                let set = match columns.is_empty() {
                    true => new_empty_array(plan.schema().field(0).data_type()),
                    false => concat(&columns)?,
                };
                match *op == Operator::Eq && !*all && hashable(set.data_type()) {
                    true => Answer::Members(Arc::new(Members::new(&set)?)),
                    false => Answer::Rows(set),
                }
            }
        })
    }
}

/// `values` (typed, or untyped NULLs) as an array of `data_type`.
fn values_to_array(values: impl Iterator<Item = ScalarValue>, data_type: &DataType, rows: usize) -> Result<ArrayRef> {
    if rows == 0 {
        return Ok(new_empty_array(data_type));
    }
    let typed_null = ScalarValue::try_from(data_type)?;
    let array =
        ScalarValue::iter_to_array(values.map(|value| if value.is_null() { typed_null.clone() } else { value }))?;
    if array.data_type() == data_type {
        Ok(array)
    } else {
        Ok(cast(&array, data_type)?)
    }
}

/// `left[row] op ANY|ALL (set)` with SQL's rules: ANY is true if some
/// comparison is, else NULL if some is NULL, else false (so false for no rows);
/// ALL is false if some comparison is, else NULL if some is NULL, else true.
fn compare_with_set(left: &ArrayRef, row: usize, set: &ArrayRef, op: Operator, all: bool) -> Result<Option<bool>> {
    if set.is_empty() {
        return Ok(Some(all));
    }
    if left.is_null(row) {
        return Ok(None);
    }
    let mut value = left.slice(row, 1);
    if value.data_type() != set.data_type() {
        value = cast(&value, set.data_type())?;
    }
    let value = Scalar::new(value);
    let results = match op {
        Operator::Eq => cmp::eq(set, &value),
        Operator::NotEq => cmp::neq(set, &value),
        // The set is on the left of the kernel, so the comparison turns around.
        Operator::Lt => cmp::gt(set, &value),
        Operator::LtEq => cmp::gt_eq(set, &value),
        Operator::Gt => cmp::lt(set, &value),
        Operator::GtEq => cmp::lt_eq(set, &value),
        other => {
            let message = format!("subquery comparison with {other} is not supported");
            return Err(Error::new(ErrorKind::NotSupported, message).into());
        }
    }?;
    let decisive = if all { results.false_count() } else { results.true_count() };
    Ok(if decisive > 0 {
        Some(!all)
    } else if results.null_count() > 0 {
        None
    } else {
        Some(all)
    })
}

/// `plan` with its outer references to `keys` replaced by the `values`, also
/// inside its own subqueries (which then no longer list them as outer
/// columns) unless a query in between has a column of that name (`shadowed`).
pub fn bind_outer(
    plan: LogicalPlan,
    keys: &[Column],
    values: &[ScalarValue],
    shadowed: &HashSet<Column>,
) -> Result<LogicalPlan> {
    let inner_shadowed = with_own_columns(&plan, shadowed)?;
    let bind_subquery = |mut subquery: Subquery| -> Result<Transformed<Subquery>> {
        subquery.outer_ref_columns.retain(|outer| {
            !matches!(outer, Expr::OuterReferenceColumn(_, column) if keys.contains(column) && !inner_shadowed.contains(column))
        });
        let plan = Arc::unwrap_or_clone(subquery.subquery);
        subquery.subquery = Arc::new(bind_outer(plan, keys, values, &inner_shadowed)?);
        Ok(Transformed::yes(subquery))
    };
    let bind = |expr: Expr| -> Result<Transformed<Expr>> {
        Ok(match expr {
            Expr::OuterReferenceColumn(field, column) if !shadowed.contains(&column) => {
                match keys.iter().position(|key| *key == column) {
                    Some(i) => Transformed::yes(Expr::Literal(values[i].cast_to(field.data_type())?, None)),
                    None => Transformed::no(Expr::OuterReferenceColumn(field, column)),
                }
            }
            Expr::ScalarSubquery(subquery) => bind_subquery(subquery)?.update_data(Expr::ScalarSubquery),
            Expr::Exists(Exists { subquery, negated }) => {
                bind_subquery(subquery)?.update_data(|subquery| Expr::Exists(Exists { subquery, negated }))
            }
            Expr::InSubquery(InSubquery { expr, subquery, negated }) => bind_subquery(subquery)?
                .update_data(|subquery| Expr::InSubquery(InSubquery { expr, subquery, negated })),
            Expr::SetComparison(SetComparison { expr, subquery, op, quantifier }) => bind_subquery(subquery)?
                .update_data(|subquery| Expr::SetComparison(SetComparison { expr, subquery, op, quantifier })),
            other => Transformed::no(other),
        })
    };
    plan.transform_down(|node| node.map_expressions(|expr| expr.transform_down(bind))).data()
}
