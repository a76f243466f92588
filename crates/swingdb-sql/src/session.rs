//! Builds the DataFusion `SessionContext` of a connection: swingdb's catalog as
//! the default, information_schema on, file paths usable as tables, and the
//! `read_*` table functions.

use crate::catalog::{Attached, Databases, Registered, SwingCatalog, Tables, TablesSchema, CATALOG};
use crate::functions::{FileKind, ReadFile};
use crate::operators::few_groups::FewGroupsAggregation;
use crate::operators::overflow::CheckedArithmetic;
use crate::operators::single_row::CheckScalarSubqueries;
use crate::optimizer::conjunction::CheapConjunctions;
use crate::optimizer::filter_placement::{ConditionAboveScans, RuntimeFilterPlacement};
use crate::optimizer::plan_renewal::{KeepPlanBeforeRuntimeFilters, KeptPlan};
use crate::optimizer::planner::SwingQueryPlanner;
use crate::optimizer::range_aggregate::RangeAggregation;
use crate::optimizer::rules::{SwingOptions, Switchable};
use crate::optimizer::selectivity::FilterSelectivity;
use crate::optimizer::spilling_joins::SpillingJoins;
use crate::optimizer::subquery::{PlanRefusedSubqueries, PlanRemainingSubqueries};
use datafusion::catalog::{CatalogProviderList, DynamicFileCatalog, MemoryCatalogProviderList, UrlTableFactory};
use datafusion::datasource::dynamic_file::DynamicListTableFactory;
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::execution::FunctionRegistry;
use datafusion::optimizer::{Analyzer, AnalyzerRule};
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_session::SessionStore;
use std::sync::{Arc, LazyLock};
use swingdb_storage::error::Result;
use swingdb_storage::SegmentStore;

/// Rows per batch inside plans. DataFusion's default (8192) makes a filter that
/// keeps many rows copy them twice (filter, then coalesce into small batches)
/// and hands the client thousands of pieces to join; 32768 cut a 50 % selection
/// of a 1 GB table from 337 to 242 ms and left TPC-H SF1 times unchanged
/// (measured again with statistics in the scans: geometric mean 79 ms at 8192,
/// 79-86 at 32768, 87 at 65536, whose larger batches slowed Q17 and Q18).
const BATCH_SIZE: usize = 32 * 1024;

/// Most cores on which joins build one hash table from their whole build side
/// rather than hash-partitioning both inputs (see [`new_context`]).
const COLLECT_JOINS_UP_TO_CORES: usize = 4;

/// Fewest build-side rows per value of the key's range for a hash join on
/// one integer key to look rows up in an array indexed by the key
/// (DataFusion's "perfect hash join", 0.15 by default). An array of 4 bytes
/// per value of the range costs at most 200 bytes per build row at 0.02
/// (a hash table about 45), and a lookup is one memory access where a hash
/// table's is two or more; a probe side stored in key order (lineitem by
/// order key) then walks the array forwards. TPC-H Q5 joins 60M lineitem
/// rows with the 1994 orders (15 % of 15M order keys spread over 60M:
/// density 0.04): at SF10 1349 -> 664 ms; Q3 884 -> 571, Q4 488 -> 334,
/// Q7 1046 -> 708, Q9 3099 -> 2325, Q12 380 -> 249 (medians of 3, in one
/// session); the SF1 suite's geometric mean 46.9-49.6 -> 43.3-46.9 ms.
const ARRAY_JOIN_MIN_KEY_DENSITY: f64 = 0.02;

/// The engine's settings that depend on the machine, chosen by measurement on
/// 2 cores (TPC-H SF1, geometric mean of the 22 queries' warm medians; runs of
/// the same build differ by up to 10 %):
/// - Partitions: one per core (DataFusion's default). 4 partitions on 2 cores:
///   81 ms against 79-86.
/// - Joins: on up to [`COLLECT_JOINS_UP_TO_CORES`] cores, a hash join builds
///   one table from its build side and every partition probes it, instead of
///   repartitioning both inputs by key. Repartitioning hashes and copies every
///   row of both sides to buy a parallel build; with 2 cores that costs more
///   than it gains: 68-77 ms against 79-86 (Q7 230 -> 87-99 ms, Q5 150 -> 71-91,
///   Q18 551 -> 360-421, Q21 219 -> 167-195). With many cores a single-threaded
///   build of a large side would leave the others idle, so DataFusion's
///   default (repartition when the build side is large) stays there.
/// - Small build sides are collected on any machine (DataFusion's threshold,
///   128K rows): with each partition of a scan taking turns (`SegmentSource`),
///   lowering it to 0 or 20K rows measured no faster.
fn machine_settings(config: &mut SessionConfig, cores: usize) {
    if cores <= COLLECT_JOINS_UP_TO_CORES {
        config.options_mut().optimizer.repartition_joins = false;
    }
}

/// DataFusion's analyzer rules, after swingdb's that must see the plan
/// before type coercion (swingdb's others follow DataFusion's, in `template`).
fn analyzer_rules() -> Vec<Arc<dyn AnalyzerRule + Send + Sync>> {
    let mut rules: Vec<Arc<dyn AnalyzerRule + Send + Sync>> = vec![Arc::new(crate::optimizer::division::Division)];
    rules.extend(Analyzer::new().rules);
    rules
}

/// DataFusion's physical optimizer rules, after a check that scalar subqueries
/// run once give at most one row ([`CheckScalarSubqueries`]), with filters estimated from the
/// columns' distinct counts ([`FilterSelectivity`]) before join sides are
/// chosen; after all of them (once runtime filters reached the scans) join
/// filters taken off the scans that feed their join directly
/// ([`RuntimeFilterPlacement`]), and filters' cheap comparisons evaluated
/// together ([`CheapConjunctions`]: other rules look for DataFusion's own AND),
/// hash joins that may not fit the memory limit made grace hash joins right
/// after join selection ([`SpillingJoins`]),
/// and handed to the scans under them that apply runtime filters
/// ([`ConditionAboveScans`]),
/// and aggregations into few groups computed by swingdb's operator
/// ([`FewGroupsAggregation`]: other rules look for DataFusion's), and
/// aggregations over partitions that share no group finished in one step
/// ([`RangeAggregation`], after the plan's distribution is checked); each of
/// swingdb's rules that only makes plans faster can be switched off by name
/// ([`Switchable`], see `sql::optimizer::rules`). The plan
/// as it is before runtime filters are pushed down is left in `kept`
/// ([`KeepPlanBeforeRuntimeFilters`], in the session's [`KeptPlan`]), for a
/// repeated query to start from.
fn physical_rules() -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    let mut rules = PhysicalOptimizer::new().rules;
    rules.insert(0, Arc::new(CheckScalarSubqueries));
    let joins = rules.iter().position(|r| r.name() == "join_selection").unwrap_or(0);
    rules.insert(joins, Arc::new(Switchable(FilterSelectivity)));
    // After join selection (now at `joins + 1`): hash joins that may not fit the memory limit spill.
    rules.insert(joins + 2, Arc::new(SpillingJoins));
    rules.push(Arc::new(RuntimeFilterPlacement));
    rules.push(Arc::new(Switchable(CheapConjunctions)));
    rules.push(Arc::new(Switchable(ConditionAboveScans)));
    rules.push(Arc::new(Switchable(FewGroupsAggregation)));
    rules.push(Arc::new(Switchable(RangeAggregation)));
    KeepPlanBeforeRuntimeFilters::placed_in(&mut rules);
    crate::optimizer::limit_barrier::place(&mut rules);
    rules
}

/// What one connection's session reads: its own tables, the other databases
/// of its family, the attached snapshots.
pub struct ContextParts {
    /// The schema this connection's own tables are known by: `main`, or the
    /// alias its database is attached under.
    pub own: String,
    /// Its own tables (read through `store`).
    pub tables: Tables,
    /// Data registered on it (queryable, never stored).
    pub registered: Registered,
    /// Every database of its family; its own is added under `own`.
    pub databases: Databases,
    /// The snapshots attached to the database (`ATTACH SNAPSHOT`).
    pub snapshots: Attached,
    /// Where its own segments are mapped from.
    pub store: Arc<SegmentStore>,
    /// Whether SQL may read and write files.
    pub external_access: bool,
}

/// What every connection's session starts from, built once per process:
/// the settings, DataFusion's functions, planners and rules and swingdb's
/// (some 400 registrations, which took most of the time a connection took
/// to open when each connection made them; cloning them is a copy of a few
/// maps of shared pointers).
static TEMPLATE: LazyLock<SessionState> = LazyLock::new(template);

fn template() -> SessionState {
    let mut config = SessionConfig::new()
        .with_information_schema(true)
        .with_default_catalog_and_schema(CATALOG, crate::catalog::SCHEMA)
        .with_create_default_catalog_and_schema(false)
        .with_batch_size(BATCH_SIZE);
    machine_settings(&mut config, std::thread::available_parallelism().map_or(1, |n| n.get()));
    config.options_mut().execution.perfect_hash_join_min_key_density = ARRAY_JOIN_MIN_KEY_DENSITY;
    // DataFusion 55 plans set operations whose outputs are nullable in the
    // logical plan and not in the physical one (or the other way round); its
    // check that an aggregate's two input schemas match exactly then failed
    // valid statements with an InternalError (`SELECT DISTINCT ... FROM (a
    // UNION b)`, found by the differential fuzzer). The check is DataFusion's
    // own switch for such planner differences; operators still check types.
    config.options_mut().execution.skip_physical_aggregate_schema_check = true;
    // Plain Utf8 strings: the type every Arrow consumer (numpy, pandas, older
    // readers) understands without conversion.
    config.options_mut().sql_parser.map_string_types_to_utf8view = false;
    // A derived table's ORDER BY is kept: `SELECT * FROM (SELECT ... ORDER
    // BY amt DESC) LIMIT 2` returns the top rows, as in DuckDB, SQLite and
    // PostgreSQL (and a relation's `.order().limit()` builds that query).
    // DataFusion drops such a sort unless a LIMIT sits inside it.
    config.options_mut().sql_parser.enable_subquery_sort_elimination = false;
    // A number with a decimal point is an exact DECIMAL, as in DuckDB and
    // PostgreSQL (`0.1 + 0.2 = 0.3`); `dialect::numbers` keeps exponent and
    // over-long literals DOUBLE, `optimizer::decimal_division` divides in DOUBLE.
    config.options_mut().sql_parser.parse_float_as_decimal = true;
    // Errors point at the mistake in the SQL text (see `sql::frontend::diagnose`).
    config.options_mut().sql_parser.collect_spans = true;
    // TIMESTAMPTZ / TIMESTAMP WITH TIME ZONE columns keep their zone (UTC
    // instants, as DuckDB stores them), so they reach pandas and polars
    // zone-aware; unset, DataFusion makes them naive timestamps. now() and
    // current_timestamp give UTC instants too.
    config.options_mut().execution.time_zone = Some("UTC".to_string());
    let config = config.with_option_extension(SwingOptions::default());
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_runtime_env(crate::memory::runtime())
        .with_default_features()
        .with_query_planner(Arc::new(SwingQueryPlanner))
        .with_type_planner(Arc::new(crate::frontend::dialect::binary_types::BinaryTypes))
        .with_physical_optimizer_rules(physical_rules())
        .with_analyzer_rules(analyzer_rules())
        .build();
    // JSON's -> and ->> before DataFusion's own planners, which refuse them.
    // String subscripts before DataFusion's, which take lists only.
    let mut planners = vec![
        Arc::new(crate::frontend::json::JsonOperators) as Arc<dyn datafusion::logical_expr::planner::ExprPlanner>,
        Arc::new(crate::frontend::dialect::subscripts::StringSubscripts),
    ];
    planners.extend(state.expr_planners().iter().cloned());
    let state = SessionStateBuilder::new_from_existing(state).with_expr_planners(planners).build();
    let ctx = SessionContext::new_with_state(state);
    ctx.add_analyzer_rule(Arc::new(CheckedArithmetic));
    // Before float_equality, which keys the floats of the windows it adds.
    ctx.add_analyzer_rule(Arc::new(crate::optimizer::bag_set_operations::BagSetOperations));
    ctx.add_analyzer_rule(Arc::new(crate::optimizer::float_equality::FloatEquality));
    ctx.add_analyzer_rule(Arc::new(crate::optimizer::rounding_casts::RoundingCasts));
    ctx.add_analyzer_rule(Arc::new(crate::optimizer::enum_order::EnumOrder));
    // Last in both lists: they take what DataFusion's own subquery handling refuses.
    ctx.add_analyzer_rule(Arc::new(PlanRefusedSubqueries));
    ctx.add_optimizer_rule(Arc::new(PlanRemainingSubqueries));
    // Before physical planning, whose sort enforcement mishandles this shape.
    ctx.add_optimizer_rule(Arc::new(crate::optimizer::sort_over_limit::SortOverSortedLimit));
    for aggregate in crate::frontend::dialect::aggregates::functions() {
        ctx.register_udaf(aggregate);
    }
    ctx.register_udaf(crate::operators::string_agg::string_agg());
    ctx.register_udaf(crate::frontend::dialect::mode::mode());
    let enum_functions = crate::frontend::dialect::enum_functions::casts()
        .into_iter()
        .chain(crate::frontend::dialect::enum_functions::functions());
    for function in enum_functions {
        ctx.register_udf(function.as_ref().clone());
    }
    for aggregate in crate::frontend::dialect::value_aggregates::functions() {
        ctx.register_udaf(aggregate);
    }
    for name in crate::frontend::dialect::bigint_ranks::RANKS {
        let rank = ctx.udwf(name).expect("DataFusion's ranking window functions are registered");
        ctx.register_udwf(crate::frontend::dialect::bigint_ranks::bigint_rank(rank));
    }
    for (name, least) in crate::frontend::dialect::null_concat::CONCATS {
        let concat = ctx.udf(name).expect("DataFusion's concatenations are registered");
        ctx.register_udf(crate::frontend::dialect::null_concat::null_tolerant(concat, least));
    }
    for function in crate::frontend::json::functions() {
        ctx.register_udf(function.as_ref().clone());
    }
    ctx.register_udf(crate::frontend::dialect::settings::current_setting());
    ctx.register_udf(crate::frontend::dialect::information_schema::sql_type_name());
    for function in crate::frontend::dialect::functions::functions()
        .into_iter()
        .chain(crate::frontend::dialect::lambdas::functions())
        .chain(crate::frontend::dialect::text_functions::functions())
        .chain(crate::frontend::dialect::epochs::functions())
        .chain(crate::frontend::dialect::formatting::functions())
        .chain(crate::frontend::dialect::encodings::functions())
        .chain(crate::frontend::dialect::paths::functions())
        .chain(crate::frontend::dialect::graphemes::functions())
        .chain(crate::frontend::dialect::list_functions::functions())
        .chain([crate::frontend::dialect::bars::bar()])
    {
        ctx.register_udf(function);
    }
    // Last: it runs the aggregates registered by then, by name.
    let aggregates = ctx.state().aggregate_functions().clone();
    for function in crate::frontend::dialect::list_functions::list_aggregates(&aggregates) {
        ctx.register_udf(function);
    }
    ctx.state()
}

/// A session whose default schema is `main` of `parts.databases`, and whose
/// own tables (and `registered` data) appear under `parts.own`. Without
/// `external_access`, file paths are not tables and the `read_*` functions
/// refuse to run.
///
/// It starts from the process's [`TEMPLATE`], with what is its own: its
/// catalogs (a list of its own, never the template's, which every session
/// would share), its place for a plan kept for reuse, the sequence
/// functions of its tables and the `read_*` functions.
pub fn new_context(parts: ContextParts) -> Result<SessionContext> {
    let ContextParts { own, tables, registered, databases, snapshots, store, external_access } = parts;
    // Cloned, not rebuilt: a builder registers every function again.
    let mut state = TEMPLATE.clone();
    // Where the plan of a query is kept for reuse (see `sql::optimizer::plan_renewal`).
    state.config_mut().options_mut().extensions.insert(KeptPlan::default());
    // File paths as tables: what `SessionContext::enable_url_table` does,
    // done on the state (that method rebuilds the state with a builder).
    let catalogs: Arc<dyn CatalogProviderList> = Arc::new(MemoryCatalogProviderList::new());
    let url_tables = external_access.then(|| Arc::new(DynamicListTableFactory::new(SessionStore::new())));
    state.register_catalog_list(match &url_tables {
        Some(factory) => Arc::new(DynamicFileCatalog::new(catalogs, factory.clone() as Arc<dyn UrlTableFactory>)),
        None => catalogs,
    });
    let ctx = SessionContext::new_with_state(state);
    if let Some(factory) = url_tables {
        factory.session_store().with_state(ctx.state_weak_ref());
    }
    for function in crate::frontend::dialect::sequence_values::functions(&own, tables.clone(), store.dir().clone()) {
        ctx.register_udf(function);
    }
    let own_schema = Arc::new(TablesSchema::new(&own, tables, registered, store, external_access));
    databases.lock().insert(own, own_schema.clone());
    ctx.register_catalog(CATALOG, Arc::new(SwingCatalog::new(databases, snapshots)));
    for kind in [FileKind::Csv, FileKind::Parquet, FileKind::Json, FileKind::Arrow] {
        ctx.register_udtf(kind.function_name(), Arc::new(ReadFile::new(kind, external_access)));
    }
    // Views are planned with this (final) session's state.
    let session = ctx.state_weak_ref();
    own_schema.set_session(Box::new(move || session.upgrade().map(|state| state.read().clone())));
    Ok(ctx)
}
