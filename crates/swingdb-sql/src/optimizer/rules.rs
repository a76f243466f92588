//! swingdb's optimizer rules by name, and the setting that switches them
//! off: `SET disabled_optimizers = 'join_order,few_groups_aggregation'`
//! (DuckDB's setting; also `swingdb.disabled_optimizers`), `''` turns all
//! back on. Each rule only makes a query faster: switched off, the query
//! answers the same (tests compare both plans and answers, see
//! `tests/sql/optimizer_rules.slt`), which is what makes switching one off
//! useful to find whether a rule is behind a slow or wrong answer.
//!
//! Rules that make a query *right* are not in the list and cannot be
//! switched off: checked arithmetic (`overflow`), subqueries DataFusion
//! refuses (`subquery`), the sort over a sorted LIMIT (`sort_over_limit`),
//! the LIMIT barriers around sort enforcement (`limit_barrier`), the
//! placement of runtime filters (`filter_placement`: it also takes a filter
//! off a scan that does not read its column, which DataFusion 55 hands it by
//! name and would drop matching rows), the grace hash joins that replace
//! hash joins too large for the memory limit (`spilling_joins`), and the
//! plan kept for repeated queries (`reuse`, which changes no plan).

use datafusion::common::config::{ConfigExtension, ConfigOptions};
use datafusion::common::extensions_options;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use std::sync::Arc;
use swingdb_storage::error::{Error, Result};

extensions_options! {
    /// swingdb's own settings (`SET swingdb.<name> = ...`).
    pub struct SwingOptions {
        /// Names of optimizer rules not to apply, separated by commas.
        pub disabled_optimizers: String, default = String::new()
        /// The compression of tables created without one (`SET default_compression`).
        pub default_compression: String, default = "zero-copy".to_string()
    }
}

impl ConfigExtension for SwingOptions {
    const PREFIX: &'static str = "swingdb";
}

/// Every rule that can be switched off, by name, with what it does.
pub const RULES: &[(&str, &str)] = &[
    ("join_order", "inner joins in the order estimated cheapest (sql::optimizer::join_order)"),
    ("unique_key_join", "joins keyed on one side's unique columns only (sql::optimizer::unique_key_join)"),
    ("shared_subplans", "subplans used more than once computed once (sql::optimizer::shared_subplans)"),
    ("filter_selectivity", "filters estimated from distinct counts (sql::optimizer::selectivity)"),
    ("cheap_conjunctions", "a filter's cheap comparisons evaluated together (sql::optimizer::conjunction)"),
    ("condition_above_scans", "filters handed to the scans under them (sql::optimizer::filter_placement)"),
    ("few_groups_aggregation", "aggregations into few groups by swingdb's operator (sql::operators::few_groups)"),
    ("range_aggregation", "aggregations over disjoint partitions in one step (sql::optimizer::range_aggregate)"),
    ("key_lookup", "rows found through a key's or an index's runs instead of read (sql::catalog::key_lookup)"),
];

/// Whether `rule` (one of [`RULES`]) applies under `config`.
pub fn is_enabled(config: &ConfigOptions, rule: &str) -> bool {
    match config.extensions.get::<SwingOptions>() {
        Some(options) => !options.disabled_optimizers.split(',').any(|name| name.trim().eq_ignore_ascii_case(rule)),
        None => true,
    }
}

/// `value` of `SET disabled_optimizers` with its names checked, trimmed
/// and lower-cased; an error naming an unknown one and the known ones.
pub fn checked_rule_list(value: &str) -> Result<String> {
    let mut names = Vec::new();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let name = name.to_ascii_lowercase();
        if !RULES.iter().any(|(known, _)| *known == name) {
            let known: Vec<&str> = RULES.iter().map(|(n, _)| *n).collect();
            return Err(Error::programming(format!(
                "SET disabled_optimizers: no optimizer rule is named '{name}' (rules: {})",
                known.join(", ")
            )));
        }
        names.push(name);
    }
    Ok(names.join(","))
}

/// A physical optimizer rule that leaves the plan as it is while its name
/// is in `disabled_optimizers`.
#[derive(Debug)]
pub struct Switchable<R>(pub R);

impl<R: PhysicalOptimizerRule> PhysicalOptimizerRule for Switchable<R> {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        config: &ConfigOptions,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        match is_enabled(config, self.0.name()) {
            true => self.0.optimize(plan, config),
            false => Ok(plan),
        }
    }

    fn name(&self) -> &str {
        self.0.name()
    }

    fn schema_check(&self) -> bool {
        self.0.schema_check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_rule_is_switched_off_and_unknown_names_are_refused() {
        let mut config = ConfigOptions::new();
        config.extensions.insert(SwingOptions::default());
        assert!(is_enabled(&config, "join_order"));
        config.set("swingdb.disabled_optimizers", "few_groups_aggregation, join_order").unwrap();
        assert!(!is_enabled(&config, "join_order"));
        assert!(!is_enabled(&config, "few_groups_aggregation"));
        assert!(is_enabled(&config, "range_aggregation"));
        assert_eq!(checked_rule_list(" Join_Order ,shared_subplans").unwrap(), "join_order,shared_subplans");
        let err = checked_rule_list("join_ordr").unwrap_err();
        assert!(err.message().contains("'join_ordr'") && err.message().contains("join_order"), "{err}");
    }
}
