//! Execution operators of swingdb's own: aggregation over few groups,
//! sums that detect overflow, a string_agg that orders its own values, and
//! the watch that counts a running plan's progress and stops it when
//! interrupted.

pub mod few_groups;
pub mod overflow;
pub mod single_row;
pub mod string_agg;
pub mod watch;
