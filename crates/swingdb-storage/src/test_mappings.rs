//! What the kernel says about this process's memory mappings and the page
//! cache, for tests of how swingdb maps, advises and reads memory
//! (`/proc/self/maps`, `smaps`, `mincore`).

/// The address range a `maps` or `smaps` line starts with, if it is a
/// mapping's first line (`start-end perms ...`).
fn range_of(line: &str) -> Option<(usize, usize)> {
    let (s, e) = line.split_whitespace().next()?.split_once('-')?;
    Some((usize::from_str_radix(s, 16).ok()?, usize::from_str_radix(e, 16).ok()?))
}

/// The address range of the mapping that holds `address`.
pub fn mapping_at(address: usize) -> (usize, usize) {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines().filter_map(range_of).find(|(s, e)| (*s..*e).contains(&address)).expect("a mapping holds the address")
}

/// The line starting with `field` (such as `"VmFlags:"` or `"Rss:"`) of the
/// mapping in `/proc/self/smaps` that holds `address`.
pub fn smaps_field_at(address: usize, field: &str) -> String {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((start, end)) = range_of(line) {
            inside = (start..end).contains(&address);
        } else if inside && line.starts_with(field) {
            return line.to_string();
        }
    }
    panic!("no mapping holds {address:#x}")
}

/// The bytes of `len` bytes from `start` (page aligned) that are in memory,
/// page by page (`mincore`): exact for that range, where a mapping's `Rss`
/// in `smaps` also counts neighbours the kernel merged into the same mapping
/// (another test thread's anonymous region, say).
pub fn resident_bytes_in(start: *const u8, len: usize) -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let mut pages = vec![0u8; len.div_ceil(page)];
    // SAFETY: `start..start + len` is a mapping of the caller's, and `pages`
    // has one byte per page of it.
    let rc = unsafe { libc::mincore(start as *mut libc::c_void, len, pages.as_mut_ptr()) };
    assert_eq!(rc, 0, "mincore: {}", std::io::Error::last_os_error());
    pages.iter().filter(|&&p| p & 1 == 1).count() * page
}

/// Drops the pages of the file at `path` from the page cache (written back
/// first); whether it worked: false where the file system keeps them (tmpfs).
pub fn drop_cached(path: &std::path::Path) -> bool {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    file.sync_all().unwrap();
    // SAFETY: a plain advice on an open file descriptor.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    cached_bytes(path) == 0
}

/// How many bytes of the file at `path` are in the page cache.
pub fn cached_bytes(path: &std::path::Path) -> usize {
    let file = std::fs::File::open(path).unwrap();
    // SAFETY: the test's own file, not modified while mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    resident_bytes_in(map.as_ptr(), map.len())
}
