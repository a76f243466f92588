//! Sizes in bytes as people write and read them, the way DuckDB does:
//! `'2GB'` and `'1.5GiB'` in settings, `1.8 GiB` in `format_bytes`, `SHOW
//! memory_limit` and error messages.

/// Bytes of a size as DuckDB writes them (see `memory::set_memory_limit`).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_lowercase();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale: f64 = match unit.trim() {
        "" | "b" | "bytes" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024f64.powi(2),
        "gib" => 1024f64.powi(3),
        "tib" => 1024f64.powi(4),
        _ => return None,
    };
    let bytes = number * scale;
    (bytes.is_finite() && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// `n` bytes in the largest binary unit (KiB, MiB, ...) it has one of, with
/// one decimal cut (not rounded) as DuckDB's `format_bytes`; under 1 KiB in bytes.
pub fn format_bytes(n: impl Into<i128>) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let n: i128 = n.into();
    let (sign, magnitude) = (if n < 0 { "-" } else { "" }, n.unsigned_abs());
    if magnitude < 1024 {
        return format!("{n} byte{}", if magnitude == 1 { "" } else { "s" });
    }
    let unit = (1..=UNITS.len()).rev().find(|&u| magnitude >= 1u128 << (10 * u)).expect("at least 1 KiB");
    let base = 1u128 << (10 * unit);
    let tenth = (magnitude % base) * 10 / base;
    format!("{sign}{}.{tenth} {}", magnitude / base, UNITS[unit - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_as_duckdb_reads_them() {
        assert_eq!(parse_size("2GB"), Some(2_000_000_000));
        assert_eq!(parse_size(" 1.5 GiB "), Some(1_610_612_736));
        assert_eq!(parse_size("512mib"), Some(512 << 20));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("2 PB"), None);
        assert_eq!(parse_size("GB"), None);
    }

    #[test]
    fn bytes_read_in_binary_units() {
        assert_eq!(format_bytes(0), "0 bytes");
        assert_eq!(format_bytes(1), "1 byte");
        assert_eq!(format_bytes(1023), "1023 bytes");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes((1 << 20) - 1), "1023.9 KiB", "cut, not rounded");
        assert_eq!(format_bytes(-3i64 << 30), "-3.0 GiB");
        assert_eq!(format_bytes(1_000_000_000_000_000_000i64), "888.1 PiB");
        assert_eq!(format_bytes(i64::MIN), "-8.0 EiB");
        assert_eq!(format_bytes(usize::MAX as u64), "15.9 EiB");
        assert_eq!(format_bytes(2_000_000_000u64), "1.8 GiB", "as DuckDB shows memory_limit = '2GB'");
    }
}
