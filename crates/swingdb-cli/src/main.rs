//! The `swingdb` program: the shell of this crate's library (see [`swingdb_cli::run`]).

use std::process::ExitCode;

/// Large allocations on huge pages (see `swingdb_storage::huge_pages::LargeOnHugePages`).
#[global_allocator]
static ALLOCATOR: swingdb_storage::huge_pages::LargeOnHugePages = swingdb_storage::huge_pages::LargeOnHugePages;

fn main() -> ExitCode {
    ExitCode::from(swingdb_cli::run(std::env::args()))
}
