//! "Did you mean ...?" for a mistyped function name. DataFusion picks the
//! candidate of smallest edit distance, which for `avrage` is `range`; people
//! keep the start of a name and swap or drop letters in the middle, so the
//! closest name here is the one with the fewest edits (a swap of two
//! neighbours counts as one) after crediting the first letters it shares
//! with what was typed (up to three).

/// The candidate closest to `typed` (case-insensitive), if any.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed: Vec<char> = typed.to_lowercase().chars().collect();
    candidates
        .into_iter()
        .map(|c| {
            let lower: Vec<char> = c.to_lowercase().chars().collect();
            let distance = edits(&typed, &lower);
            let prefix = typed.iter().zip(&lower).take_while(|(a, b)| a == b).count().min(3);
            ((distance as isize - prefix as isize, distance, c.len(), c), c)
        })
        .min_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, c)| c)
}

/// Edits (insert, delete, replace, swap of neighbours) turning `a` into `b`.
fn edits(a: &[char], b: &[char]) -> usize {
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=b.len() {
        rows[0][j] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let replace = rows[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = replace.min(rows[i - 1][j] + 1).min(rows[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_the_function_meant() {
        let names =
            ["avg", "range", "length", "ln", "sum", "count", "cot", "upper", "lower", "array_agg", "string_agg"];
        for (typed, meant) in [
            ("avrage", "avg"),
            ("lenght", "length"),
            ("summ", "sum"),
            ("uper", "upper"),
            ("AVG_", "avg"),
            ("strng_agg", "string_agg"),
        ] {
            assert_eq!(closest(typed, names), Some(meant), "{typed}");
        }
        assert_eq!(closest("x", std::iter::empty()), None);
        assert_eq!(edits(&['a', 'b'], &['b', 'a']), 1);
    }
}
