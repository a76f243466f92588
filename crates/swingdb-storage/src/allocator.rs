//! The global allocator of the programs built on swingdb (the Python module,
//! the shell): mimalloc, with transparent huge pages asked for under large
//! allocations.
//!
//! A query allocates and frees arrays of a batch's rows (32K rows of a
//! 16-byte DECIMAL: 512 KiB) thousands of times. glibc's malloc handed such
//! memory back to the kernel at each free (its trim threshold follows its
//! mmap threshold: a few hundred KiB) and faulted it in again at the next
//! allocation: `sum(price * (1 - discount))` over TPC-H's 6M lineitems took
//! 59-69 ms, a third of it in the kernel's page faults, and 18-19 ms with
//! glibc told to keep 32 MiB (`mallopt`). mimalloc keeps freed pages for
//! reuse a while before it returns them, and serves only swingdb's own
//! allocations: the host process's (Python's, R's) stay with its malloc,
//! as Polars (jemalloc) and DataFusion's Python bindings (mimalloc) do.
//! Buffers handed to numpy or pyarrow without a copy are freed through
//! their release callbacks, by this same allocator.
//!
//! `local_dynamic_tls`: the Python module is a library loaded at run time,
//! which may not use the initial-exec thread-local model mimalloc would
//! otherwise pick.

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};

/// Allocations from this size up get huge pages (see [`Allocator`]). mimalloc
/// gives each of them pages of their own, so the advice covers that
/// allocation's pages only.
const LARGE: usize = 32 << 20;

/// mimalloc, asking for transparent huge pages under every allocation of
/// [`LARGE`] bytes or more.
///
/// A hash join of TPC-H SF10's lineitem with 1.5M orders looks order keys
/// up in an array of 60M entries (DataFusion's `ArrayMap`, 240 MB, zeroed
/// for each query): on 4 KiB pages that was 125K page faults a query, half
/// reading the zero page and half writing it, 20 % of Q3's time.
///
/// ```edition2024,standalone_crate
/// // In a program (not a library) that embeds swingdb:
/// #[global_allocator]
/// static ALLOCATOR: swingdb_storage::allocator::Allocator = swingdb_storage::allocator::Allocator;
/// let big = vec![0u8; 8 << 20]; // large: advised onto huge pages
/// assert_eq!(big.len(), 8 << 20);
/// ```
pub struct Allocator;

/// Advises huge pages under the `size` bytes at `ptr` when that is large.
fn advise_if_large(ptr: *mut u8, size: usize) {
    // Not through a slice: a fresh allocation's bytes are not initialized.
    if size >= LARGE && !ptr.is_null() {
        crate::huge_pages::advise(ptr as usize, size);
    }
}

// SAFETY: every call is mimalloc's; the advice changes how memory is
// backed, never what it holds.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { MiMalloc.alloc(layout) };
        advise_if_large(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { MiMalloc.alloc_zeroed(layout) };
        advise_if_large(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if new_size > layout.size() {
            advise_if_large(moved, new_size);
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_mappings::smaps_field_at;

    #[test]
    fn large_allocations_ask_for_huge_pages_and_small_ones_do_not() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return; // a kernel without transparent huge pages
        }
        let large = Layout::from_size_align(64 << 20, 8).unwrap();
        let small = Layout::from_size_align(1 << 20, 8).unwrap();
        // SAFETY: allocated and freed with the same layouts.
        unsafe {
            let l = Allocator.alloc_zeroed(large);
            let s = Allocator.alloc(small);
            let large_flags = smaps_field_at(l as usize + (32 << 20), "VmFlags:");
            let small_flags = smaps_field_at(s as usize, "VmFlags:");
            assert!(large_flags.split_whitespace().any(|f| f == "hg"), "{large_flags}");
            assert!(!small_flags.split_whitespace().any(|f| f == "hg"), "{small_flags}");
            let grown = Allocator.realloc(s, small, 128 << 20);
            let grown_flags = smaps_field_at(grown as usize + (64 << 20), "VmFlags:");
            assert!(grown_flags.split_whitespace().any(|f| f == "hg"), "{grown_flags}");
            Allocator.dealloc(l, large);
            Allocator.dealloc(grown, Layout::from_size_align(128 << 20, 8).unwrap());
        }
    }
}
