//! The `swingdb` program: the shell of this crate's library (see [`swingdb_cli::run`]).

use std::process::ExitCode;

/// mimalloc, large allocations on huge pages (see `swingdb_storage::allocator`).
#[global_allocator]
static ALLOCATOR: swingdb_storage::allocator::Allocator = swingdb_storage::allocator::Allocator;

fn main() -> ExitCode {
    ExitCode::from(swingdb_cli::run(std::env::args()))
}
