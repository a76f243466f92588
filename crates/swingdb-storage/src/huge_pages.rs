//! Asking the kernel for huge pages under large arrays: read at random
//! (group ids and totals indexed by group), each lookup in an array of tens
//! of megabytes on 4 KiB pages also misses the TLB; and each 4 KiB page of a
//! fresh allocation costs a page fault (two where it is read before it is
//! written), where a 2 MiB page costs one for 512 of them.

/// Advises the kernel to back `values` with transparent huge pages (a no-op
/// where it has none, or where they are off). Arrays below 4 MiB are left
/// alone: they fit the TLB's reach either way. Call it before the memory is
/// first written: pages already there are not merged.
///
/// The advice covers the pages `values` touches, edges included (only whole
/// 2 MiB stretches inside get huge pages). Advising only the aligned
/// interior split an allocation's own mapping in three, and `mremap` (how
/// glibc grows a large allocation) refuses to move a range that spans
/// mappings (EFAULT).
///
/// Only for memory read more than once: on a virtual machine that hands
/// free memory back to its host (virtio-balloon free page reporting), a
/// fresh 2 MiB page can cost more than the 512 page faults it saves.
pub fn prefer<T>(values: &[T]) {
    advise(values.as_ptr() as usize, std::mem::size_of_val(values));
}

/// [`prefer`] for the `len` bytes from address `start`, which may not be
/// initialized yet (a fresh allocation's).
fn advise(start: usize, len: usize) {
    if len < 4 << 20 {
        return;
    }
    let page = page_size();
    let first = start / page * page;
    let end = (start + len).next_multiple_of(page);
    // SAFETY: the range covers only pages that hold part of the caller's
    // memory; MADV_HUGEPAGE changes how memory is backed, never its contents.
    unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
}

/// The size of the machine's pages.
pub fn page_size() -> usize {
    static PAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    // SAFETY: sysconf has no preconditions.
    *PAGE.get_or_init(|| usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096).max(1))
}

/// Allocations from this size up get huge pages. glibc's malloc maps each
/// allocation of 32 MiB or more on its own (its largest threshold), so the
/// advice covers that allocation's mapping only.
const LARGE: usize = 32 << 20;

/// The system allocator, asking for transparent huge pages under every
/// allocation of [`LARGE`] bytes or more. The programs built on swingdb (the
/// Python module, the shell) declare it their global allocator.
///
/// A hash join of TPC-H SF10's lineitem with 1.5M orders looks order keys
/// up in an array of 60M entries (DataFusion's `ArrayMap`, 240 MB, zeroed
/// for each query): on 4 KiB pages that was 125K page faults a query, half
/// reading the zero page and half writing it, 20 % of Q3's time.
///
/// ```edition2024,standalone_crate
/// // In a program (not a library) that embeds swingdb:
/// #[global_allocator]
/// static ALLOCATOR: swingdb_storage::huge_pages::LargeOnHugePages = swingdb_storage::huge_pages::LargeOnHugePages;
/// let big = vec![0u8; 8 << 20]; // large: advised onto huge pages
/// assert_eq!(big.len(), 8 << 20);
/// ```
pub struct LargeOnHugePages;

/// Advises huge pages under the `size` bytes at `ptr` when that is large.
fn advise_if_large(ptr: *mut u8, size: usize) {
    // Not through a slice: a fresh allocation's bytes are not initialized.
    if size >= LARGE && !ptr.is_null() {
        advise(ptr as usize, size);
    }
}

// SAFETY: every call is the system allocator's; the advice changes how
// memory is backed, never what it holds.
unsafe impl std::alloc::GlobalAlloc for LargeOnHugePages {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let ptr = unsafe { std::alloc::System.alloc(layout) };
        advise_if_large(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let ptr = unsafe { std::alloc::System.alloc_zeroed(layout) };
        advise_if_large(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        if new_size > layout.size() {
            advise_if_large(moved, new_size);
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_mappings::{mapping_at, smaps_field_at};
    use std::alloc::{GlobalAlloc, Layout};

    #[test]
    fn large_allocations_ask_for_huge_pages_and_small_ones_do_not() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return; // a kernel without transparent huge pages
        }
        let large = Layout::from_size_align(64 << 20, 8).unwrap();
        let small = Layout::from_size_align(1 << 20, 8).unwrap();
        // SAFETY: allocated and freed with the same layouts.
        unsafe {
            let l = LargeOnHugePages.alloc_zeroed(large);
            let s = LargeOnHugePages.alloc(small);
            let large_flags = smaps_field_at(l as usize + (32 << 20), "VmFlags:");
            let small_flags = smaps_field_at(s as usize, "VmFlags:");
            assert!(large_flags.split_whitespace().any(|f| f == "hg"), "{large_flags}");
            // One mapping from the first byte to the last: none split off.
            assert_eq!(mapping_at(l as usize), mapping_at(l as usize + (64 << 20) - 1));
            assert!(!small_flags.split_whitespace().any(|f| f == "hg"), "{small_flags}");
            let grown = LargeOnHugePages.realloc(s, small, 128 << 20);
            let grown_flags = smaps_field_at(grown as usize + (64 << 20), "VmFlags:");
            assert!(grown_flags.split_whitespace().any(|f| f == "hg"), "{grown_flags}");
            LargeOnHugePages.dealloc(l, large);
            LargeOnHugePages.dealloc(grown, Layout::from_size_align(128 << 20, 8).unwrap());
        }
    }
}
