//! "Did you mean ...?" for a mistyped function name. DataFusion picks the
//! candidate of smallest edit distance, which for `avrage` is `range`; people
//! keep the start of a name and swap or drop letters in the middle, so the
//! closest name here is the one with the fewest edits (a swap of two
//! neighbours counts as one) after crediting the first letters it shares
//! with what was typed (up to three).

/// The candidate closest to `typed` (case-insensitive), if any.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed = typed.to_lowercase();
    candidates
        .into_iter()
        .map(|c| {
            let lower = c.to_lowercase();
            // Edits (insert, delete, replace, swap of neighbours) turning one into the other.
            let distance = strsim::osa_distance(&typed, &lower);
            let prefix = typed.chars().zip(lower.chars()).take_while(|(a, b)| a == b).count().min(3);
            ((distance as isize - prefix as isize, distance, c.len(), c), c)
        })
        .min_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, c)| c)
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
    }
}
