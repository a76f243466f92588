//! Guessing a CSV file's delimiter and header from its first lines, as
//! DuckDB's `read_csv` does when they are not given.
//!
//! - **Delimiter**: of `,` `;` tab and `|`, the one that splits every sampled
//!   line into the same number of fields (more than one), preferring more
//!   fields; outside quotes only. None does: `,`.
//! - **Header**: the first line names the columns unless it looks like data:
//!   some column whose other values all read as one type that is not text
//!   (integer, number, boolean, date) has a first value of that type too
//!   (`1,x` over `2,y` is data; `id,name` over `2,y` is a header). A file of
//!   one line, or of text only, is taken to have a header.

/// Lines looked at.
const SAMPLE_LINES: usize = 50;

/// Delimiters tried, in order of preference on a tie.
const CANDIDATES: [u8; 4] = [b',', b';', b'\t', b'|'];

/// What the sample says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The field separator.
    pub delimiter: u8,
    /// Whether the first line names the columns.
    pub header: bool,
}

/// The dialect of the CSV text starting with `sample` (a prefix of the
/// file: a last line without its end is not looked at, unless the sample is
/// the whole file, `whole`), with `quote` as quote character; a `delimiter`
/// or `header` given is kept as given.
pub fn sniff(sample: &[u8], whole: bool, quote: u8, delimiter: Option<u8>, header: Option<bool>) -> Dialect {
    let text = String::from_utf8_lossy(sample);
    let mut lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    if !whole || lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let lines: Vec<&str> = lines.into_iter().filter(|l| !l.trim().is_empty()).take(SAMPLE_LINES).collect();
    let delimiter = delimiter.unwrap_or_else(|| guess_delimiter(&lines, quote));
    let header = header.unwrap_or_else(|| guess_header(&lines, delimiter, quote));
    Dialect { delimiter, header }
}

fn guess_delimiter(lines: &[&str], quote: u8) -> u8 {
    let mut best: Option<(usize, u8)> = None;
    for candidate in CANDIDATES {
        let counts: Vec<usize> = lines.iter().map(|l| fields(l, candidate, quote).len()).collect();
        let Some(&first) = counts.first() else { continue };
        if first > 1 && counts.iter().all(|&c| c == first) && best.is_none_or(|(n, _)| first > n) {
            best = Some((first, candidate));
        }
    }
    best.map_or(b',', |(_, d)| d)
}

fn guess_header(lines: &[&str], delimiter: u8, quote: u8) -> bool {
    let rows: Vec<Vec<String>> = lines.iter().map(|l| fields(l, delimiter, quote)).collect();
    let Some((first, rest)) = rows.split_first() else { return true };
    if rest.is_empty() {
        return true;
    }
    for (column, value) in first.iter().enumerate() {
        let kinds: Vec<Kind> =
            rest.iter().filter_map(|r| r.get(column)).filter(|v| !v.is_empty()).map(|v| kind(v)).collect();
        let Some(common) = kinds.iter().copied().reduce(Kind::widen) else { continue };
        if common != Kind::Text && !value.is_empty() && kind(value).widen(common) == common {
            return false;
        }
    }
    true
}

/// The fields of `line` split at `delimiter` outside `quote`s, unquoted.
fn fields(line: &str, delimiter: u8, quote: u8) -> Vec<String> {
    let (delimiter, quote) = (delimiter as char, quote as char);
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c == quote && quoted && chars.peek() == Some(&quote) => {
                out.last_mut().unwrap().push(quote);
                chars.next();
            }
            c if c == quote => quoted = !quoted,
            c if c == delimiter && !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// The type a value reads as, from narrowest to widest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Integer,
    Number,
    Boolean,
    Date,
    Text,
}

impl Kind {
    /// The narrowest kind both read as.
    fn widen(self, other: Kind) -> Kind {
        match (self, other) {
            (a, b) if a == b => a,
            (Kind::Integer, Kind::Number) | (Kind::Number, Kind::Integer) => Kind::Number,
            _ => Kind::Text,
        }
    }
}

fn kind(value: &str) -> Kind {
    let v = value.trim();
    if v.parse::<i64>().is_ok() {
        Kind::Integer
    } else if v.parse::<f64>().is_ok() && v.chars().any(|c| c.is_ascii_digit()) {
        Kind::Number
    } else if v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false") {
        Kind::Boolean
    } else if chrono::NaiveDate::parse_from_str(v, "%Y-%m-%d").is_ok() {
        Kind::Date
    } else {
        Kind::Text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guess(text: &str) -> Dialect {
        sniff(text.as_bytes(), true, b'"', None, None)
    }

    #[test]
    fn delimiters_and_headers_are_guessed_as_duckdb_does() {
        assert_eq!(guess("a;b;c\n1;x;2.5\n2;y;3.5\n"), Dialect { delimiter: b';', header: true });
        assert_eq!(guess("a|b\n1|x\n"), Dialect { delimiter: b'|', header: true });
        assert_eq!(guess("a\tb\n1\tx\n"), Dialect { delimiter: b'\t', header: true });
        assert_eq!(guess("1,x\n2,y\n"), Dialect { delimiter: b',', header: false });
        assert_eq!(guess("name,city\nann,paris\nbob,rome\n"), Dialect { delimiter: b',', header: true });
        assert_eq!(guess("day,price\n2024-01-02,1.5\n2024-01-03,2\n"), Dialect { delimiter: b',', header: true });
        assert_eq!(guess("2024-01-01,1.5\n2024-01-02,2\n"), Dialect { delimiter: b',', header: false });
        // A quoted delimiter is no delimiter; a single column stays one.
        assert_eq!(guess("\"a;b\",c\n\"1;2\",3\n").delimiter, b',');
        assert_eq!(guess("words\nhello\n"), Dialect { delimiter: b',', header: true });
    }

    #[test]
    fn given_options_win_and_a_cut_last_line_is_ignored() {
        assert_eq!(sniff(b"1;2\n3;4\n", true, b'"', Some(b','), Some(true)), Dialect { delimiter: b',', header: true });
        assert_eq!(sniff(b"a;b\n1;2\n3;4\n5", false, b'"', None, None).delimiter, b';');
    }
}
