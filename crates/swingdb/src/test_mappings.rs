//! What the kernel says about this process's memory mappings, for tests of
//! how swingdb maps and advises memory (`/proc/self/maps` and `smaps`).

/// The address range a `maps` or `smaps` line starts with, if it is a
/// mapping's first line (`start-end perms ...`).
fn range_of(line: &str) -> Option<(usize, usize)> {
    let (s, e) = line.split_whitespace().next()?.split_once('-')?;
    Some((usize::from_str_radix(s, 16).ok()?, usize::from_str_radix(e, 16).ok()?))
}

/// The address range of the mapping that holds `address`.
pub fn mapping_at(address: usize) -> (usize, usize) {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(range_of)
        .find(|(s, e)| (*s..*e).contains(&address))
        .expect("a mapping holds the address")
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

/// The bytes of the mapping that holds `address` in memory (its `Rss`).
pub fn resident_bytes_at(address: usize) -> usize {
    let line = smaps_field_at(address, "Rss:");
    let kb: usize = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("Rss: <n> kB");
    kb << 10
}
