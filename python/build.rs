//! Links the extension with the code a first use runs placed together at the
//! start of its machine code (the functions listed in hot-code.txt, written by
//! hot_code.py), so that a fresh process's first query faults in a few MB of
//! code instead of pages scattered over all ~100 MB: connect + a first COUNT/SUM
//! on a 10 MB table, 6.7 -> 4.5 ms (medians of 21 fresh processes, twice each).
//!
//! Only where rustc links with its own LLD, which reads the list
//! (`--symbol-ordering-file`): x86_64 Linux (GNU) from Rust 1.90 on, unless the
//! build chose another linker. Elsewhere the layout is the linker's own, and
//! `_swingdb._hot_code_first` is False.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=hot-code.txt");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    // The directory of this run's clone: `env!` would bake in the clone the
    // script was compiled in, which cargo reuses from a shared target
    // directory for other clones (the list was then missing wherever that
    // clone was gone, and the extension linked without it).
    let manifest_dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let list = std::path::Path::new(&manifest_dir).join("hot-code.txt");
    // The linker reads a copy in OUT_DIR, not the clone's file: cargo keeps
    // this script's output across clones that share a target directory (CI's
    // clone and a developer's, say), and a path into a clone since removed
    // failed the link.
    let order = std::path::Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("hot-code.txt");
    let applies = std::fs::copy(&list, &order).is_ok() && links_with_rust_lld();
    if applies {
        println!(
            "cargo:rustc-link-arg-cdylib=-Wl,--symbol-ordering-file={},--no-warn-symbol-ordering",
            order.display()
        );
    }
    println!("cargo:rustc-env=SWINGDB_HOT_CODE_FIRST={applies}");
    // The list's content in the build script's output: cargo relinks the
    // extension when this output changes, not when a file a link argument
    // names does (a regenerated list otherwise took effect only in a fresh
    // target directory).
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&std::fs::read(&list).unwrap_or_default(), &mut hasher);
    println!("cargo:rustc-env=SWINGDB_HOT_CODE_LIST={:016x}", std::hash::Hasher::finish(&hasher));
}

/// Whether rustc links this target with its self-contained LLD by default and
/// the build's flags do not pick another linker.
fn links_with_rust_lld() -> bool {
    let var = |name: &str| env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_ARCH") != "x86_64"
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
    {
        return false;
    }
    if var("CARGO_ENCODED_RUSTFLAGS").contains("link") {
        return false; // -C linker=..., linker-features, link-self-contained, link-arg: the build's own choice
    }
    if !var("RUSTC_LINKER").is_empty() {
        return false; // a linker set for the target (`make wheel`'s zig, which refuses the list)
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    // "rustc 1.95.0 (...)": the minor version of 1.x.
    let minor = version.split_whitespace().nth(1).and_then(|v| v.split('.').nth(1)).and_then(|m| m.parse::<u32>().ok());
    minor.is_some_and(|m| m >= 90)
}
