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
pub(crate) fn advise(start: usize, len: usize) {
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
