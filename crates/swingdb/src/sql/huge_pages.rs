//! Asking the kernel for huge pages under large arrays read at random
//! (group ids and totals indexed by group): with 4 KiB pages, each lookup
//! in an array of tens of megabytes also misses the TLB.

/// Advises the kernel to back `values` with transparent huge pages (a no-op
/// where it has none, or where they are off). Arrays below 4 MiB are left
/// alone: they fit the TLB's reach either way. Call it before the memory is
/// first written: pages already there are not merged.
pub fn prefer<T>(values: &[T]) {
    const HUGE: usize = 2 << 20;
    let (start, len) = (values.as_ptr() as usize, std::mem::size_of_val(values));
    if len < 2 * HUGE {
        return;
    }
    let aligned = start.next_multiple_of(HUGE);
    let end = (start + len) / HUGE * HUGE;
    // SAFETY: the range lies inside `values`' allocation; MADV_HUGEPAGE
    // changes how it is backed, never its contents.
    unsafe { libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE) };
}
