// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

use std::fmt::Debug;
use std::sync::Arc;

use crate::utils::{
    add_sort_above_with_distribution, is_sort, is_sort_preserving_merge, is_union,
    is_window,
};

use arrow::datatypes::SchemaRef;
use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{HashSet, JoinSide, Result, internal_err};
use datafusion_expr::JoinType;
use datafusion_physical_expr::expressions::Column;
use datafusion_physical_expr::utils::collect_columns;
use datafusion_physical_expr::{
    Distribution, EquivalenceProperties, add_offset_to_physical_sort_exprs,
};
use datafusion_physical_expr_common::sort_expr::{
    LexOrdering, LexRequirement, OrderingRequirements, PhysicalSortExpr,
    PhysicalSortRequirement,
};
use datafusion_physical_plan::aggregates::AggregateExec;
use datafusion_physical_plan::execution_plan::CardinalityEffect;
use datafusion_physical_plan::filter::FilterExec;
use datafusion_physical_plan::joins::utils::{
    ColumnIndex, calculate_join_output_ordering,
};
use datafusion_physical_plan::joins::{HashJoinExec, SortMergeJoinExec};
use datafusion_physical_plan::projection::{ProjectionExec, ProjectionExpr};
use datafusion_physical_plan::repartition::RepartitionExec;
use datafusion_physical_plan::sorts::sort::SortExec;
use datafusion_physical_plan::tree_node::PlanContext;
use datafusion_physical_plan::union::UnionExec;
use datafusion_physical_plan::{ExecutionPlan, ExecutionPlanProperties};

/// "Data class" used by sort pushdown (now driven from `EnsureRequirements`)
/// to push down [`SortExec`] in the plan. In some cases the total
/// computational cost is reduced by pushing down `SortExec`s through certain
/// executors. The object carries the parent required ordering, the (optional)
/// `fetch` value of the parent node, and the parent's distribution requirement
/// (used by the distribution-aware pushdown path) as its data.
#[derive(Clone, Debug)]
pub struct ParentRequirements {
    ordering_requirement: Option<OrderingRequirements>,
    fetch: Option<usize>,
    /// The distribution required by the consumer above any SortExec we insert.
    /// When this is `SinglePartition` and the input has multiple partitions,
    /// `add_sort_above_with_distribution` wraps the sort in `SortPreservingMergeExec`.
    distribution_requirement: Distribution,
}

impl Default for ParentRequirements {
    fn default() -> Self {
        Self {
            ordering_requirement: None,
            fetch: None,
            distribution_requirement: Distribution::UnspecifiedDistribution,
        }
    }
}

pub type SortPushDown = PlanContext<ParentRequirements>;

/// Assigns the ordering requirement of the root node to the its children.
pub fn assign_initial_requirements(sort_push_down: &mut SortPushDown) {
    let reqs = sort_push_down.plan.required_input_ordering();
    let dists = sort_push_down
        .plan
        .input_distribution_requirements()
        .into_per_child();
    for (idx, (child, requirement)) in
        sort_push_down.children.iter_mut().zip(reqs).enumerate()
    {
        child.data = ParentRequirements {
            ordering_requirement: requirement,
            fetch: child.plan.fetch(),
            distribution_requirement: dists
                .get(idx)
                .cloned()
                .unwrap_or(Distribution::UnspecifiedDistribution),
        };
    }
}

/// Tries to push down the sort requirements as far as possible, if decides a `SortExec` is unnecessary removes it.
pub fn pushdown_sorts(sort_push_down: SortPushDown) -> Result<SortPushDown> {
    sort_push_down
        .transform_down(pushdown_sorts_helper)
        .map(|transformed| transformed.data)
}

fn min_fetch(f1: Option<usize>, f2: Option<usize>) -> Option<usize> {
    match (f1, f2) {
        (Some(f1), Some(f2)) => Some(f1.min(f2)),
        (Some(_), _) => f1,
        (_, Some(_)) => f2,
        _ => None,
    }
}

/// Returns the stricter of two distribution requirements.
/// `SinglePartition` is the strictest.
#[expect(
    deprecated,
    reason = "HashPartitioned is accepted during the KeyPartitioned migration"
)]
fn stronger_distribution(a: &Distribution, b: &Distribution) -> Distribution {
    match (a, b) {
        (Distribution::SinglePartition, _) | (_, Distribution::SinglePartition) => {
            Distribution::SinglePartition
        }
        (Distribution::HashPartitioned(exprs), _)
        | (Distribution::KeyPartitioned(exprs), _) => {
            Distribution::KeyPartitioned(exprs.clone())
        }
        (_, Distribution::HashPartitioned(exprs))
        | (_, Distribution::KeyPartitioned(exprs)) => {
            Distribution::KeyPartitioned(exprs.clone())
        }
        _ => Distribution::UnspecifiedDistribution,
    }
}

fn pushdown_sorts_helper(
    mut sort_push_down: SortPushDown,
) -> Result<Transformed<SortPushDown>> {
    let plan = sort_push_down.plan;
    let parent_fetch = sort_push_down.data.fetch;
    let parent_distribution = sort_push_down.data.distribution_requirement.clone();

    let Some(parent_requirement) = sort_push_down.data.ordering_requirement.clone()
    else {
        // If there are no ordering requirements from the parent, nothing to do
        // unless we have a sort.
        if is_sort(&plan) {
            let Some(sort_ordering) = plan.output_ordering().cloned() else {
                return internal_err!("SortExec should have output ordering");
            };
            // The sort is unnecessary, just propagate the stricter fetch and
            // ordering requirements.
            let fetch = min_fetch(plan.fetch(), parent_fetch);
            sort_push_down = sort_push_down
                .children
                .swap_remove(0)
                .update_plan_from_children()?;
            sort_push_down.data.fetch = fetch;
            sort_push_down.data.ordering_requirement =
                Some(OrderingRequirements::from(sort_ordering));
            // Recursive call to helper, so it doesn't transform_down and miss
            // the new node (previous child of sort):
            return pushdown_sorts_helper(sort_push_down);
        }
        sort_push_down.plan = plan;
        // No ordering is being pushed; use each child's own distribution requirement
        let dists = sort_push_down
            .plan
            .input_distribution_requirements()
            .into_per_child();
        for (idx, child) in sort_push_down.children.iter_mut().enumerate() {
            child.data.distribution_requirement = dists
                .get(idx)
                .cloned()
                .unwrap_or(Distribution::UnspecifiedDistribution);
        }
        return Ok(Transformed::no(sort_push_down));
    };

    let eqp = plan.equivalence_properties();
    let satisfy_parent =
        eqp.ordering_satisfy_requirement(parent_requirement.first().clone())?;

    if is_sort(&plan) {
        let Some(sort_ordering) = plan.output_ordering().cloned() else {
            return internal_err!("SortExec should have output ordering");
        };

        let sort_fetch = plan.fetch();
        let parent_is_stricter = eqp.requirements_compatible(
            parent_requirement.first().clone(),
            sort_ordering.clone().into(),
        );

        // Remove the current sort as we are either going to prove that it is
        // unnecessary, or replace it with a stricter sort.
        sort_push_down = sort_push_down
            .children
            .swap_remove(0)
            .update_plan_from_children()?;
        if !satisfy_parent && !parent_is_stricter {
            // The sort was imposing a different ordering than the one being
            // pushed down. Replace it with a sort that matches the pushed-down
            // ordering, and continue the pushdown.
            // Add back the sort (distribution-aware):
            sort_push_down = add_sort_above_with_distribution(
                sort_push_down,
                parent_requirement.into_single(),
                parent_fetch,
                &parent_distribution,
            );
            // Update pushdown requirements:
            sort_push_down.children[0].data = ParentRequirements {
                ordering_requirement: Some(OrderingRequirements::from(sort_ordering)),
                fetch: sort_fetch,
                distribution_requirement: Distribution::UnspecifiedDistribution,
            };
            return Ok(Transformed::yes(sort_push_down));
        } else {
            // Sort was unnecessary, just propagate the stricter fetch and
            // ordering requirements. Reset distribution to Unspecified
            // because the sort we're removing may have been below a
            // partition-merging node (like SortPreservingMergeExec) that
            // already satisfies SinglePartition.
            sort_push_down.data.fetch = min_fetch(sort_fetch, parent_fetch);
            sort_push_down.data.distribution_requirement =
                Distribution::UnspecifiedDistribution;
            let current_is_stricter = eqp.requirements_compatible(
                sort_ordering.clone().into(),
                parent_requirement.first().clone(),
            );
            sort_push_down.data.ordering_requirement = if current_is_stricter {
                Some(OrderingRequirements::from(sort_ordering))
            } else {
                Some(parent_requirement)
            };
            // Recursive call to helper, so it doesn't transform_down and miss
            // the new node (previous child of sort):
            return pushdown_sorts_helper(sort_push_down);
        }
    }

    sort_push_down.plan = plan;
    if satisfy_parent {
        // For non-sort operators which satisfy ordering:
        let reqs = sort_push_down.plan.required_input_ordering();
        let dists = sort_push_down
            .plan
            .input_distribution_requirements()
            .into_per_child();

        // If this node already outputs single partition, don't push SinglePartition
        // requirement to children (they're below the merge point).
        let effective_parent_dist =
            if sort_push_down.plan.output_partitioning().partition_count() == 1 {
                Distribution::UnspecifiedDistribution
            } else {
                parent_distribution.clone()
            };

        for (idx, (child, order)) in
            sort_push_down.children.iter_mut().zip(reqs).enumerate()
        {
            child.data.ordering_requirement = order;
            child.data.fetch = min_fetch(parent_fetch, child.data.fetch);
            child.data.distribution_requirement = stronger_distribution(
                &effective_parent_dist,
                dists
                    .get(idx)
                    .unwrap_or(&Distribution::UnspecifiedDistribution),
            );
        }
    } else if let Some(adjusted) = pushdown_requirement_to_children(
        &sort_push_down.plan,
        parent_requirement.clone(),
        parent_fetch,
    )? {
        // For operators that can take a sort pushdown, continue with updated
        // requirements. If this node already outputs single partition (e.g. SPM),
        // don't push SinglePartition to children.
        //
        // swingdb: a union of children each ordered so is ordered so, also
        // where a child meets the order through its own equal columns and
        // constants, which the union's equivalences cannot express ("c1 is
        // c0 in one input, both are constants in the other"): the union is
        // told to keep the ordering, else the final check refused the plan.
        if let Some(union) = sort_push_down.plan.downcast_ref::<UnionExec>() {
            let ordering = parent_requirement
                .first()
                .iter()
                .cloned()
                .map(PhysicalSortExpr::from)
                .collect::<Vec<_>>();
            if let Some(ordering) = LexOrdering::new(ordering) {
                sort_push_down.plan = Arc::new(union.keeping_ordering(ordering)?);
            }
        }
        let current_fetch = sort_push_down.plan.fetch();
        let dists = sort_push_down
            .plan
            .input_distribution_requirements()
            .into_per_child();
        let effective_dist =
            if sort_push_down.plan.output_partitioning().partition_count() == 1 {
                Distribution::UnspecifiedDistribution
            } else {
                parent_distribution.clone()
            };
        for (idx, (child, order)) in
            sort_push_down.children.iter_mut().zip(adjusted).enumerate()
        {
            child.data.ordering_requirement = order;
            child.data.fetch = min_fetch(current_fetch, parent_fetch);
            child.data.distribution_requirement = stronger_distribution(
                &effective_dist,
                dists
                    .get(idx)
                    .unwrap_or(&Distribution::UnspecifiedDistribution),
            );
        }
        sort_push_down.data.ordering_requirement = None;
    } else {
        // Can not push down requirements, add new `SortExec` (distribution-aware):
        sort_push_down = add_sort_above_with_distribution(
            sort_push_down,
            parent_requirement.into_single(),
            parent_fetch,
            &parent_distribution,
        );
        assign_initial_requirements(&mut sort_push_down);
    }
    Ok(Transformed::yes(sort_push_down))
}

/// Calculate the pushdown ordering requirements for children.
/// If sort cannot be pushed down, return None.
fn pushdown_requirement_to_children(
    plan: &Arc<dyn ExecutionPlan>,
    parent_required: OrderingRequirements,
    parent_fetch: Option<usize>,
) -> Result<Option<Vec<Option<OrderingRequirements>>>> {
    // If there is a limit on the parent plan we cannot push it down through operators that change the cardinality.
    // E.g. consider if LIMIT 2 is applied below a FilteExec that filters out 1/2 of the rows we'll end up with 1 row instead of 2.
    // If the LIMIT is applied after the FilterExec and the FilterExec returns > 2 rows we'll end up with 2 rows (correct).
    if parent_fetch.is_some() && !plan.supports_limit_pushdown() {
        return Ok(None);
    }
    // Note: we still need to check the cardinality effect of the plan here, because the
    // limit pushdown is not always safe, even if the plan supports it. Here's an example:
    //
    // UnionExec advertises `supports_limit_pushdown() == true` because it can
    // forward a LIMIT k to each of its children—i.e. apply “LIMIT k” separately
    // on each branch before merging them together.
    //
    // However, UnionExec’s `cardinality_effect() == GreaterEqual` (it sums up
    // all child row counts), so pushing a global TopK/LIMIT through it would
    // break the semantics of “take the first k rows of the combined result.”
    //
    // For example, with two branches A and B and k = 3:
    //   — Global LIMIT: take the first 3 rows from (A ∪ B) after merging.
    //   — Pushed down: take 3 from A, 3 from B, then merge → up to 6 rows!
    //
    // That’s why we still block on cardinality: even though UnionExec can
    // push a LIMIT to its children, its GreaterEqual effect means it cannot
    // preserve the global TopK semantics.
    if parent_fetch.is_some() {
        match plan.cardinality_effect() {
            CardinalityEffect::Equal => {
                // safe: only true sources (e.g. CoalesceBatchesExec, ProjectionExec) pass
            }
            _ => return Ok(None),
        }
    }

    let maintains_input_order = plan.maintains_input_order();
    if is_window(plan) {
        let mut required_input_ordering = plan.required_input_ordering();
        let maybe_child_requirement = required_input_ordering.swap_remove(0);
        let child_plan = plan.children().swap_remove(0);
        let Some(child_req) = maybe_child_requirement else {
            return Ok(None);
        };
        match determine_children_requirement(&parent_required, &child_req, child_plan) {
            RequirementsCompatibility::Satisfy => {
                // Window input requirements may be empty or constant-only.
                // Such requirements do not guarantee the parent's output ordering, so
                // keep the sort above the window unless the window output is known
                // to satisfy it.
                if !plan
                    .equivalence_properties()
                    .ordering_satisfy_requirement(parent_required.first().clone())?
                {
                    return Ok(None);
                }

                Ok(Some(vec![Some(child_req)]))
            }
            RequirementsCompatibility::Compatible(adjusted) => {
                // If parent requirements are more specific than output ordering
                // of the window plan, then we can deduce that the parent expects
                // an ordering from the columns created by window functions. If
                // that's the case, we block the pushdown of sort operation.
                if !plan
                    .equivalence_properties()
                    .ordering_satisfy_requirement(parent_required.first().clone())?
                {
                    return Ok(None);
                }

                Ok(Some(vec![adjusted]))
            }
            RequirementsCompatibility::NonCompatible => Ok(None),
        }
    } else if let Some(sort_exec) = plan.downcast_ref::<SortExec>() {
        let Some(sort_ordering) = sort_exec.properties().output_ordering().cloned()
        else {
            return internal_err!("SortExec should have output ordering");
        };
        sort_exec
            .properties()
            .eq_properties
            .requirements_compatible(
                parent_required.first().clone(),
                sort_ordering.into(),
            )
            .then(|| Ok(vec![Some(parent_required)]))
            .transpose()
    } else if plan.fetch().is_some()
        && plan.supports_limit_pushdown()
        && plan
            .maintains_input_order()
            .into_iter()
            .all(|maintain| maintain)
    {
        // Push down through operator with fetch when:
        // - requirement is aligned with output ordering
        // - it preserves ordering during execution
        //
        // A `ProjectionExec` reports a `fetch()` forwarded from its input and
        // can renumber/reorder columns, so the requirement (expressed in the
        // projection's output schema) must be remapped into the child schema
        // before being pushed down — forwarding it unchanged would let a key
        // such as `score@1` (valid in the output schema) refer to a different
        // column in the child schema, producing a `SortExec` whose key points
        // at the wrong column ("does not satisfy order requirements ...
        // Child-0 order: []"). If a required column maps to a computed
        // (non-`Column`) projection expression it cannot be expressed below the
        // projection, so the sort is kept above it.
        let child_required =
            if let Some(projection) = plan.downcast_ref::<ProjectionExec>() {
                match remap_requirement_through_projection(projection, &parent_required) {
                    Some(remapped) => remapped,
                    None => return Ok(None),
                }
            } else {
                parent_required.clone()
            };
        let Some(ordering) = plan.properties().output_ordering() else {
            return Ok(Some(vec![Some(child_required)]));
        };
        if plan.properties().eq_properties.requirements_compatible(
            parent_required.first().clone(),
            ordering.clone().into(),
        ) {
            Ok(Some(vec![Some(child_required)]))
        } else {
            Ok(None)
        }
    } else if is_union(plan) {
        // `UnionExec` does not have real sort requirements for its input, we
        // just propagate the sort requirements down (swingdb: and the union
        // keeps the ordering, see `pushdown_sorts_helper`):
        Ok(Some(vec![Some(parent_required); plan.children().len()]))
    } else if let Some(smj) = plan.downcast_ref::<SortMergeJoinExec>() {
        let left_columns_len = smj.left().schema().fields().len();
        let parent_ordering: Vec<PhysicalSortExpr> = parent_required
            .first()
            .iter()
            .cloned()
            .map(Into::into)
            .collect();
        let eqp = smj.properties().equivalence_properties();
        match expr_source_side(eqp, parent_ordering, smj.join_type(), left_columns_len) {
            Some((JoinSide::Left, ordering)) => try_pushdown_requirements_to_join(
                smj,
                parent_required.into_single(),
                ordering,
                JoinSide::Left,
            ),
            Some((JoinSide::Right, ordering)) => {
                let right_offset =
                    smj.schema().fields.len() - smj.right().schema().fields.len();
                let ordering = add_offset_to_physical_sort_exprs(
                    ordering,
                    -(right_offset as isize),
                )?;
                try_pushdown_requirements_to_join(
                    smj,
                    parent_required.into_single(),
                    ordering,
                    JoinSide::Right,
                )
            }
            _ => {
                // Can not decide the expr side for SortMergeJoinExec, can not push down
                Ok(None)
            }
        }
    } else if let Some(aggregate_exec) = plan.downcast_ref::<AggregateExec>() {
        handle_aggregate_pushdown(aggregate_exec, parent_required)
    } else if let Some(projection_exec) = plan.downcast_ref::<ProjectionExec>() {
        handle_projection_pushdown(projection_exec, &parent_required)
    } else if maintains_input_order.is_empty()
        || !maintains_input_order.iter().any(|o| *o)
        || plan.is::<RepartitionExec>()
        || plan.is::<FilterExec>()
        || pushdown_would_violate_requirements(&parent_required, plan.as_ref())
    {
        // If the current plan is a leaf node or can not maintain any of the input ordering, can not pushed down requirements.
        // For RepartitionExec, we always choose to not push down the sort requirements even the RepartitionExec(input_partition=1) could maintain input ordering.
        // Pushing down is not beneficial
        Ok(None)
    } else if is_sort_preserving_merge(plan) {
        let new_ordering = LexOrdering::from(parent_required.first().clone());
        let mut spm_eqs = plan.equivalence_properties().clone();
        let old_ordering = spm_eqs.output_ordering().unwrap();
        // Sort preserving merge will have new ordering, one requirement above is pushed down to its below.
        let change = spm_eqs.reorder(new_ordering)?;
        if !change || spm_eqs.ordering_satisfy(old_ordering)? {
            // Can push-down through SortPreservingMergeExec, because parent requirement is finer
            // than SortPreservingMergeExec output ordering.
            Ok(Some(vec![Some(parent_required)]))
        } else {
            // Do not push-down through SortPreservingMergeExec when
            // ordering requirement invalidates requirement of sort preserving merge exec.
            Ok(None)
        }
    } else if let Some(hash_join) = plan.downcast_ref::<HashJoinExec>() {
        handle_hash_join(hash_join, parent_required)
    } else {
        handle_custom_pushdown(plan, parent_required, &maintains_input_order)
    }
}

/// Remap an ordering requirement expressed in a [`ProjectionExec`]'s output
/// schema into its child (input) schema.
///
/// Every alternative requirement is remapped independently, and the
/// hard/soft-ness of the original [`OrderingRequirements`] is preserved. An
/// alternative that references a computed (non-[`Column`]) projection
/// expression cannot be expressed in the child schema and is dropped; if every
/// alternative drops out, this returns `None` (and pushdown is declined, i.e.
/// the sort is kept above the projection).
fn remap_requirement_through_projection(
    projection: &ProjectionExec,
    parent_required: &OrderingRequirements,
) -> Option<OrderingRequirements> {
    let exprs = projection.expr();
    let (alternatives, soft) = parent_required.clone().into_alternatives();
    let remapped = alternatives
        .iter()
        .filter_map(|req| remap_lex_requirement_through_projection(exprs, req));
    OrderingRequirements::new_alternatives(remapped, soft)
}

/// Remap a single [`LexRequirement`] expressed in a [`ProjectionExec`]'s output
/// schema into its child (input) schema.
///
/// Each requirement column at output index `i` is rewritten to the column the
/// projection produces at that index (`projection.expr()[i]`). Returns `None`
/// if any required column maps to a computed (non-[`Column`]) projection
/// expression, since that ordering cannot be expressed in the child schema.
fn remap_lex_requirement_through_projection(
    exprs: &[ProjectionExpr],
    req: &LexRequirement,
) -> Option<LexRequirement> {
    let mut child_reqs = Vec::with_capacity(req.len());
    for sort_req in req.iter() {
        let col = sort_req.expr.downcast_ref::<Column>()?;
        let proj_expr = exprs.get(col.index())?;
        let child_col = proj_expr.expr.downcast_ref::<Column>()?;
        child_reqs.push(PhysicalSortRequirement::new(
            Arc::new(child_col.clone()),
            sort_req.options,
        ));
    }
    LexRequirement::new(child_reqs)
}

/// Try to push sorting through  [`AggregateExec`]
///
/// `AggregateExec` only preserves the input order of its group by columns
/// (not aggregates in general, which are formed from arbitrary expressions over
/// input)
///
/// Thus function rewrites the parent required ordering in terms of the
/// aggregate input if possible. This rewritten requirement represents the
/// ordering of the `AggregateExec`'s **input** that would also satisfy the
/// **parent** ordering.
///
/// If no such mapping is possible (e.g. because the sort references aggregate
/// columns), returns None.
fn handle_aggregate_pushdown(
    aggregate_exec: &AggregateExec,
    parent_required: OrderingRequirements,
) -> Result<Option<Vec<Option<OrderingRequirements>>>> {
    if !aggregate_exec
        .maintains_input_order()
        .into_iter()
        .any(|o| o)
    {
        return Ok(None);
    }

    let group_expr = aggregate_exec.group_expr();
    // GROUPING SETS introduce additional output columns and NULL substitutions;
    // skip pushdown until we can map those cases safely.
    if group_expr.has_grouping_set() {
        return Ok(None);
    }

    let group_input_exprs = group_expr.input_exprs();
    let parent_requirement = parent_required.into_single();
    let mut child_requirement = Vec::with_capacity(parent_requirement.len());

    for req in parent_requirement {
        // Sort above AggregateExec should reference its output columns. Map each
        // output group-by column to its original input expression.
        let Some(column) = req.expr.downcast_ref::<Column>() else {
            return Ok(None);
        };
        if column.index() >= group_input_exprs.len() {
            // AggregateExec does not produce output that is sorted on aggregate
            // columns so those can not be pushed through.
            return Ok(None);
        }
        child_requirement.push(PhysicalSortRequirement::new(
            Arc::clone(&group_input_exprs[column.index()]),
            req.options,
        ));
    }

    let Some(child_requirement) = LexRequirement::new(child_requirement) else {
        return Ok(None);
    };

    // Keep sort above aggregate unless input ordering already satisfies the
    // mapped requirement.
    if aggregate_exec
        .input()
        .equivalence_properties()
        .ordering_satisfy_requirement(child_requirement.iter().cloned())?
    {
        let child_requirements = OrderingRequirements::new(child_requirement);
        Ok(Some(vec![Some(child_requirements)]))
    } else {
        Ok(None)
    }
}

/// Return true if pushing the sort requirements through a node would violate
/// the input sorting requirements for the plan
fn pushdown_would_violate_requirements(
    parent_required: &OrderingRequirements,
    child: &dyn ExecutionPlan,
) -> bool {
    child
        .required_input_ordering()
        .into_iter()
        // If there is no requirement, pushing down would not violate anything.
        .flatten()
        .any(|child_required| {
            // Check if the plan's requirements would still be satisfied if we
            // pushed down the parent requirements:
            child_required
                .into_single()
                .iter()
                .zip(parent_required.first().iter())
                .all(|(c, p)| !c.compatible(p))
        })
}

/// Determine children requirements:
/// - If children requirements are more specific, do not push down parent
///   requirements.
/// - If parent requirements are more specific, push down parent requirements.
/// - If they are not compatible, need to add a sort.
fn determine_children_requirement(
    parent_required: &OrderingRequirements,
    child_requirement: &OrderingRequirements,
    child_plan: &Arc<dyn ExecutionPlan>,
) -> RequirementsCompatibility {
    let eqp = child_plan.equivalence_properties();
    if eqp.requirements_compatible(
        child_requirement.first().clone(),
        parent_required.first().clone(),
    ) {
        // Child requirements are more specific, no need to push down.
        RequirementsCompatibility::Satisfy
    } else if eqp.requirements_compatible(
        parent_required.first().clone(),
        child_requirement.first().clone(),
    ) {
        // Parent requirements are more specific, adjust child's requirements
        // and push down the new requirements:
        RequirementsCompatibility::Compatible(Some(parent_required.clone()))
    } else {
        RequirementsCompatibility::NonCompatible
    }
}

fn try_pushdown_requirements_to_join(
    smj: &SortMergeJoinExec,
    parent_required: LexRequirement,
    sort_exprs: Vec<PhysicalSortExpr>,
    push_side: JoinSide,
) -> Result<Option<Vec<Option<OrderingRequirements>>>> {
    let mut smj_required_orderings = smj.required_input_ordering();

    let ordering = LexOrdering::new(sort_exprs.clone());
    let (new_left_ordering, new_right_ordering) = match push_side {
        JoinSide::Left => {
            let mut left_eq_properties = smj.left().equivalence_properties().clone();
            left_eq_properties.reorder(sort_exprs)?;
            let Some(left_requirement) = smj_required_orderings.swap_remove(0) else {
                return Ok(None);
            };
            if !left_eq_properties
                .ordering_satisfy_requirement(left_requirement.into_single())?
            {
                return Ok(None);
            }
            // After re-ordering, requirement is still satisfied:
            (ordering.as_ref(), smj.right().output_ordering())
        }
        JoinSide::Right => {
            let mut right_eq_properties = smj.right().equivalence_properties().clone();
            right_eq_properties.reorder(sort_exprs)?;
            let Some(right_requirement) = smj_required_orderings.swap_remove(1) else {
                return Ok(None);
            };
            if !right_eq_properties
                .ordering_satisfy_requirement(right_requirement.into_single())?
            {
                return Ok(None);
            }
            // After re-ordering, requirement is still satisfied:
            (smj.left().output_ordering(), ordering.as_ref())
        }
        JoinSide::None => return Ok(None),
    };
    let join_type = smj.join_type();
    let probe_side = SortMergeJoinExec::probe_side(&join_type);
    let new_output_ordering = calculate_join_output_ordering(
        new_left_ordering,
        new_right_ordering,
        join_type,
        smj.left().schema().fields.len(),
        &smj.maintains_input_order(),
        Some(probe_side),
    )?;
    let mut smj_eqs = smj.properties().equivalence_properties().clone();
    if let Some(new_output_ordering) = new_output_ordering {
        // smj will have this ordering when its input changes.
        smj_eqs.reorder(new_output_ordering)?;
    }
    let should_pushdown = smj_eqs.ordering_satisfy_requirement(parent_required)?;
    Ok(should_pushdown.then(|| {
        let mut required_input_ordering = smj.required_input_ordering();
        let new_req = ordering.map(Into::into);
        match push_side {
            JoinSide::Left => {
                required_input_ordering[0] = new_req;
            }
            JoinSide::Right => {
                required_input_ordering[1] = new_req;
            }
            JoinSide::None => unreachable!(),
        }
        required_input_ordering
    }))
}

fn expr_source_side(
    eqp: &EquivalenceProperties,
    mut ordering: Vec<PhysicalSortExpr>,
    join_type: JoinType,
    left_columns_len: usize,
) -> Option<(JoinSide, Vec<PhysicalSortExpr>)> {
    // TODO: Handle the case where a prefix of the ordering comes from the left
    //       and a suffix from the right.
    match join_type {
        JoinType::Inner
        | JoinType::Left
        | JoinType::Right
        | JoinType::Full
        | JoinType::LeftMark
        | JoinType::RightMark => {
            let eq_group = eqp.eq_group();
            let mut right_ordering = ordering.clone();
            let (mut valid_left, mut valid_right) = (true, true);
            for (left, right) in ordering.iter_mut().zip(right_ordering.iter_mut()) {
                let col = left.expr.downcast_ref::<Column>()?;
                let eq_class = eq_group.get_equivalence_class(&left.expr);
                if col.index() < left_columns_len {
                    if valid_right {
                        valid_right = eq_class.is_some_and(|cls| {
                            for expr in cls.iter() {
                                if expr
                                    .downcast_ref::<Column>()
                                    .is_some_and(|c| c.index() >= left_columns_len)
                                {
                                    right.expr = Arc::clone(expr);
                                    return true;
                                }
                            }
                            false
                        });
                    }
                } else if valid_left {
                    valid_left = eq_class.is_some_and(|cls| {
                        for expr in cls.iter() {
                            if expr
                                .downcast_ref::<Column>()
                                .is_some_and(|c| c.index() < left_columns_len)
                            {
                                left.expr = Arc::clone(expr);
                                return true;
                            }
                        }
                        false
                    });
                };
                if !(valid_left || valid_right) {
                    return None;
                }
            }
            if valid_left {
                Some((JoinSide::Left, ordering))
            } else if valid_right {
                Some((JoinSide::Right, right_ordering))
            } else {
                // TODO: Handle the case where we can push down to both sides.
                None
            }
        }
        JoinType::LeftSemi | JoinType::LeftAnti => ordering
            .iter()
            .all(|e| e.expr.is::<Column>())
            .then_some((JoinSide::Left, ordering)),
        JoinType::RightSemi | JoinType::RightAnti => ordering
            .iter()
            .all(|e| e.expr.is::<Column>())
            .then_some((JoinSide::Right, ordering)),
    }
}

/// Handles the custom pushdown of parent-required sorting requirements down to
/// the child execution plans, considering whether the input order is maintained.
///
/// # Arguments
///
/// * `plan` - A reference to an `ExecutionPlan` for which the pushdown will be applied.
/// * `parent_required` - The sorting requirements expected by the parent node.
/// * `maintains_input_order` - A vector of booleans indicating whether each child
///   maintains the input order.
///
/// # Returns
///
/// Returns `Ok(Some(Vec<Option<LexRequirement>>))` if the sorting requirements can be
/// pushed down, `Ok(None)` if not. On error, returns a `Result::Err`.
fn handle_custom_pushdown(
    plan: &Arc<dyn ExecutionPlan>,
    parent_required: OrderingRequirements,
    maintains_input_order: &[bool],
) -> Result<Option<Vec<Option<OrderingRequirements>>>> {
    let plan_children = plan.children();

    // If the plan has no children, return early:
    if plan_children.is_empty() {
        return Ok(None);
    }

    // Collect all unique column indices used in the parent-required sorting
    // expression:
    let requirement = parent_required.into_single();
    let all_indices: HashSet<usize> = requirement
        .iter()
        .flat_map(|order| {
            collect_columns(&order.expr)
                .iter()
                .map(|col| col.index())
                .collect::<HashSet<_>>()
        })
        .collect();

    // Get the number of fields in each child's schema:
    let children_schema_lengths: Vec<usize> = plan_children
        .iter()
        .map(|c| c.schema().fields().len())
        .collect();

    // Find the index of the order-maintaining child:
    let Some(maintained_child_idx) = maintains_input_order
        .iter()
        .enumerate()
        .find(|(_, m)| **m)
        .map(|pair| pair.0)
    else {
        return Ok(None);
    };

    // Check if all required columns come from the order-maintaining child:
    let start_idx = children_schema_lengths[..maintained_child_idx]
        .iter()
        .sum::<usize>();
    let end_idx = start_idx + children_schema_lengths[maintained_child_idx];
    let all_from_maintained_child =
        all_indices.iter().all(|i| i >= &start_idx && i < &end_idx);

    // If all columns are from the maintained child, update the parent requirements:
    if all_from_maintained_child {
        let sub_offset = children_schema_lengths
            .iter()
            .take(maintained_child_idx)
            .sum::<usize>();
        // Transform the parent-required expression for the child schema by
        // adjusting columns:
        let updated_parent_req = requirement
            .into_iter()
            .map(|req| {
                let child_schema = plan_children[maintained_child_idx].schema();
                let updated_columns = req
                    .expr
                    .transform_up(|expr| {
                        if let Some(col) = expr.downcast_ref::<Column>() {
                            let new_index = col.index() - sub_offset;
                            Ok(Transformed::yes(Arc::new(Column::new(
                                child_schema.field(new_index).name(),
                                new_index,
                            ))))
                        } else {
                            Ok(Transformed::no(expr))
                        }
                    })?
                    .data;
                Ok(PhysicalSortRequirement::new(updated_columns, req.options))
            })
            .collect::<Result<Vec<_>>>()?;

        // Prepare the result, populating with the updated requirements for children that maintain order
        let result = maintains_input_order
            .iter()
            .map(|&maintains_order| {
                if maintains_order {
                    LexRequirement::new(updated_parent_req.clone())
                        .map(OrderingRequirements::new)
                } else {
                    None
                }
            })
            .collect();

        Ok(Some(result))
    } else {
        Ok(None)
    }
}

// For hash join we only maintain the input order for the right child
// for join type: Inner, Right, RightSemi, RightAnti, RightMark
fn handle_hash_join(
    plan: &HashJoinExec,
    parent_required: OrderingRequirements,
) -> Result<Option<Vec<Option<OrderingRequirements>>>> {
    // If the plan has no children or does not maintain the right side ordering,
    // return early:
    if !plan.maintains_input_order()[1] {
        return Ok(None);
    }

    // Collect all unique column indices used in the parent-required sorting expression
    let requirement = parent_required.into_single();
    let all_indices: HashSet<_> = requirement
        .iter()
        .flat_map(|order| {
            collect_columns(&order.expr)
                .into_iter()
                .map(|col| col.index())
                .collect::<HashSet<_>>()
        })
        .collect();

    let column_indices = build_join_column_index(plan);
    let projected_indices: Vec<_> = if let Some(projection) = plan.projection.as_ref() {
        projection.iter().map(|&i| &column_indices[i]).collect()
    } else {
        column_indices.iter().collect()
    };
    let all_from_right_child = all_indices.iter().all(|i| {
        projected_indices
            .get(*i)
            .is_some_and(|ci| ci.side == JoinSide::Right)
    });

    let plan_children = plan.children();

    // If all columns are from the right child, update the parent requirements
    if all_from_right_child {
        // Transform the parent-required expression for the child schema by adjusting columns
        let updated_parent_req = requirement
            .into_iter()
            .map(|req| {
                let child_schema = plan_children[1].schema();
                let updated_columns = req
                    .expr
                    .transform_up(|expr| {
                        if let Some(col) = expr.downcast_ref::<Column>() {
                            let index = projected_indices[col.index()].index;
                            Ok(Transformed::yes(Arc::new(Column::new(
                                child_schema.field(index).name(),
                                index,
                            ))))
                        } else {
                            Ok(Transformed::no(expr))
                        }
                    })?
                    .data;
                Ok(PhysicalSortRequirement::new(updated_columns, req.options))
            })
            .collect::<Result<Vec<_>>>()?;

        // Populating with the updated requirements for children that maintain order
        Ok(Some(vec![
            None,
            LexRequirement::new(updated_parent_req).map(OrderingRequirements::new),
        ]))
    } else {
        Ok(None)
    }
}

// this function is used to build the column index for the hash join
// push down sort requirements to the right child
fn build_join_column_index(plan: &HashJoinExec) -> Vec<ColumnIndex> {
    let map_fields = |schema: SchemaRef, side: JoinSide| {
        schema
            .fields()
            .iter()
            .enumerate()
            .map(|(index, _)| ColumnIndex { index, side })
            .collect::<Vec<_>>()
    };

    match plan.join_type() {
        JoinType::Inner | JoinType::Right => {
            map_fields(plan.left().schema(), JoinSide::Left)
                .into_iter()
                .chain(map_fields(plan.right().schema(), JoinSide::Right))
                .collect::<Vec<_>>()
        }
        JoinType::RightSemi | JoinType::RightAnti | JoinType::RightMark => {
            map_fields(plan.right().schema(), JoinSide::Right)
        }
        _ => unreachable!("unexpected join type: {}", plan.join_type()),
    }
}

/// Define the Requirements Compatibility
#[derive(Debug)]
enum RequirementsCompatibility {
    /// Requirements satisfy
    Satisfy,
    /// Requirements compatible
    Compatible(Option<OrderingRequirements>),
    /// Requirements not compatible
    NonCompatible,
}

/// Attempts to push parent ordering requirements through a [`ProjectionExec`].
///
/// This is safe when every required sort expression refers to a projected output
/// column that is backed by a simple input column. In that case, the requirement
/// can be remapped from the projection output schema to the projection input
/// schema while preserving the original sort options.
///
/// For example, a parent requirement on `a@2` over:
///
/// ```text
/// ProjectionExec: expr=[c@2 as c, b@1 as b, a@0 as a]
/// ```
///
/// is remapped to a child requirement on `a@0`.
///
/// The implementation is intentionally conservative: computed projection
/// expressions and non-column sort expressions are not pushed down. Returning
/// `Ok(None)` leaves sorting above the projection, preserving correctness.
fn handle_projection_pushdown(
    projection_exec: &ProjectionExec,
    parent_required: &OrderingRequirements,
) -> Result<Option<Vec<Option<OrderingRequirements>>>> {
    // Only push sorting through pure column projections. Source-dependent
    // expressions must stay close enough to the scan to be rewritten
    // by the source and cannot be evaluated by [`ProjectionExec`].
    if projection_exec
        .expr()
        .iter()
        .any(|expr| !expr.expr.is::<Column>())
    {
        return Ok(None);
    }

    Ok(
        remap_requirement_through_projection(projection_exec, parent_required)
            .map(|requirements| vec![Some(requirements)]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use arrow::compute::SortOptions;
    use arrow::datatypes::{DataType, Field, Schema};
    use datafusion_expr::Operator;
    use datafusion_physical_expr::PhysicalExpr;
    use datafusion_physical_expr::expressions::{BinaryExpr, col};
    use datafusion_physical_plan::empty::EmptyExec;

    const DESC: SortOptions = SortOptions {
        descending: true,
        nulls_first: false,
    };
    const ASC: SortOptions = SortOptions {
        descending: false,
        nulls_first: true,
    };

    /// Child (input) schema fed to the projections under test: `[a, b, c]`.
    fn child_schema() -> Arc<Schema> {
        Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Int32, true),
            Field::new("c", DataType::Int32, true),
        ]))
    }

    /// A projection over `[a, b, c]` whose output is `[a@0, c@2 as score,
    /// b@1 as value]` — i.e. it *reorders* (`c` moves index 2 -> 1) and renames.
    fn reordering_projection() -> Arc<ProjectionExec> {
        let schema = child_schema();
        let input = Arc::new(EmptyExec::new(Arc::clone(&schema)));
        Arc::new(
            ProjectionExec::try_new(
                vec![
                    (col("a", &schema).unwrap(), "a".to_string()),
                    (col("c", &schema).unwrap(), "score".to_string()),
                    (col("b", &schema).unwrap(), "value".to_string()),
                ],
                input,
            )
            .unwrap(),
        )
    }

    /// A projection over `[a, b, c]` whose output is `[a@0, b + c as computed]`,
    /// so output column index 1 maps to a *computed* (non-`Column`) expression.
    fn computed_projection() -> Arc<ProjectionExec> {
        let schema = child_schema();
        let input = Arc::new(EmptyExec::new(Arc::clone(&schema)));
        let b_plus_c = Arc::new(BinaryExpr::new(
            col("b", &schema).unwrap(),
            Operator::Plus,
            col("c", &schema).unwrap(),
        )) as Arc<dyn PhysicalExpr>;
        Arc::new(
            ProjectionExec::try_new(
                vec![
                    (col("a", &schema).unwrap(), "a".to_string()),
                    (b_plus_c, "computed".to_string()),
                ],
                input,
            )
            .unwrap(),
        )
    }

    /// `PhysicalSortRequirement` for `<name>@<index> <options>` in `schema`.
    fn req(name: &str, schema: &Schema, options: SortOptions) -> PhysicalSortRequirement {
        PhysicalSortRequirement::new(col(name, schema).unwrap(), Some(options))
    }

    fn lex(reqs: impl IntoIterator<Item = PhysicalSortRequirement>) -> LexRequirement {
        LexRequirement::new(reqs).unwrap()
    }

    #[test]
    fn remap_single_hard_requirement_through_reordering_projection() {
        let projection = reordering_projection();
        let out = projection.schema();
        let child = child_schema();

        // `score@1 DESC, a@0 ASC` in the output schema.
        let required = OrderingRequirements::new(lex([
            req("score", &out, DESC),
            req("a", &out, ASC),
        ]));

        let remapped =
            remap_requirement_through_projection(&projection, &required).unwrap();

        // `score@1` -> `c@2`, `a@0` -> `a@0`; still a single hard requirement.
        let expected = OrderingRequirements::new(lex([
            req("c", &child, DESC),
            req("a", &child, ASC),
        ]));
        assert_eq!(remapped, expected);
    }

    #[test]
    fn remap_preserves_softness() {
        let projection = reordering_projection();
        let out = projection.schema();
        let child = child_schema();

        let required = OrderingRequirements::new_soft(lex([req("score", &out, DESC)]));
        let remapped =
            remap_requirement_through_projection(&projection, &required).unwrap();

        let expected = OrderingRequirements::new_soft(lex([req("c", &child, DESC)]));
        assert_eq!(remapped, expected);
        // Hardness/softness is preserved through the remap.
        assert!(matches!(remapped, OrderingRequirements::Soft(_)));
    }

    #[test]
    fn remap_preserves_all_hard_alternatives() {
        let projection = reordering_projection();
        let out = projection.schema();
        let child = child_schema();

        // Two alternatives: `score@1 DESC` or `a@0 ASC, value@2 ASC`.
        let mut required = OrderingRequirements::new(lex([req("score", &out, DESC)]));
        required.add_alternative(lex([req("a", &out, ASC), req("value", &out, ASC)]));

        let remapped =
            remap_requirement_through_projection(&projection, &required).unwrap();

        // Both alternatives survive and are remapped; hardness preserved.
        let (alts, soft) = remapped.into_alternatives();
        assert!(!soft);
        assert_eq!(alts.len(), 2);
        assert_eq!(alts[0], lex([req("c", &child, DESC)]));
        // `value@2` -> `b@1`, `a@0` -> `a@0`.
        assert_eq!(alts[1], lex([req("a", &child, ASC), req("b", &child, ASC)]));
    }

    #[test]
    fn remap_drops_unsatisfiable_alternative_but_keeps_others() {
        let projection = computed_projection();
        let out = projection.schema();
        let child = child_schema();

        // Alt 1 (`a@0 ASC`) is expressible below the projection; alt 2
        // (`computed@1 DESC`) maps to `b + c` and is not.
        let mut required = OrderingRequirements::new(lex([req("a", &out, ASC)]));
        required.add_alternative(lex([req("computed", &out, DESC)]));

        let remapped =
            remap_requirement_through_projection(&projection, &required).unwrap();

        // Only the satisfiable alternative is kept; hardness preserved.
        let (alts, soft) = remapped.into_alternatives();
        assert!(!soft);
        assert_eq!(alts.len(), 1);
        assert_eq!(alts[0], lex([req("a", &child, ASC)]));
    }

    #[test]
    fn remap_declines_when_required_column_is_computed() {
        let projection = computed_projection();
        let out = projection.schema();

        // The only required column maps to a computed expression -> decline.
        let required = OrderingRequirements::new(lex([req("computed", &out, DESC)]));
        assert!(remap_requirement_through_projection(&projection, &required).is_none());
    }

    #[test]
    fn remap_declines_when_all_alternatives_are_computed() {
        let projection = computed_projection();
        let out = projection.schema();

        let mut required = OrderingRequirements::new(lex([req("computed", &out, DESC)]));
        required.add_alternative(lex([req("computed", &out, ASC)]));

        assert!(remap_requirement_through_projection(&projection, &required).is_none());
    }
}
