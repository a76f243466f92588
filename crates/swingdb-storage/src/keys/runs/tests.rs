//! Unit tests of key runs: lookups, sharing, and runs derived from a rewrite.

use super::*;

fn run(keys: &[&[u8]]) -> KeyRun {
    let keys: Vec<(Box<[u8]>, u32)> = keys.iter().enumerate().map(|(i, k)| ((*k).into(), 10 * i as u32)).collect();
    let bytes = encode(&keys);
    let count = check(&bytes).expect("a fresh run checks");
    KeyRun::built(bytes, count)
}

#[test]
fn runs_find_their_values_and_shared_ones() {
    let a = run(&[b"a", b"bb", b"c", b"dd"]);
    assert!(a.contains(b"bb") && a.contains(b"dd") && a.contains(b"a"));
    assert!(!a.contains(b"b") && !a.contains(b"") && !a.contains(b"e"));
    assert_eq!(a.iter().collect::<Vec<_>>(), vec![&b"a"[..], b"bb", b"c", b"dd"]);
    assert_eq!(a.shared_where(&run(&[b"b", b"c"]), |_| true), Some(b"c".to_vec()));
    assert_eq!(a.shared_where(&run(&[b"b", b"cc", b"e"]), |_| true), None);
    // The merge (similar sizes) and the searches (one small) agree.
    let large: Vec<Vec<u8>> = (0..1000u32).map(|i| (i * 2).to_be_bytes().to_vec()).collect();
    let large = run(&large.iter().map(|k| k.as_slice()).collect::<Vec<_>>());
    let odd: Vec<Vec<u8>> = (0..1000u32).map(|i| (i * 2 + 1).to_be_bytes().to_vec()).collect();
    assert_eq!(large.shared_where(&run(&odd.iter().map(|k| k.as_slice()).collect::<Vec<_>>()), |_| true), None);
    assert_eq!(large.shared_where(&run(&[&998u32.to_be_bytes()]), |_| true), Some(998u32.to_be_bytes().to_vec()));
    assert_eq!(large.shared_where(&run(&[&997u32.to_be_bytes()]), |_| true), None);
    // Values refused (keys of deleted rows) are passed over, by both ways.
    let evens: Vec<Vec<u8>> = (0..1000u32).map(|i| (i * 4).to_be_bytes().to_vec()).collect();
    let evens = run(&evens.iter().map(|k| k.as_slice()).collect::<Vec<_>>());
    let not_0 = |k: &[u8]| k != 0u32.to_be_bytes();
    assert_eq!(large.shared_where(&evens, not_0), Some(4u32.to_be_bytes().to_vec()));
    let two = run(&[&0u32.to_be_bytes(), &8u32.to_be_bytes()]);
    assert_eq!(large.shared_where(&two, not_0), Some(8u32.to_be_bytes().to_vec()));
    assert_eq!(a.shared_where(&run(&[b"b", b"c"]), |k| k != b"c"), None);
}

/// The run of keys given by row (position: key), sorted as a build sorts them.
fn run_of_rows(rows: &[(u32, Vec<u8>)]) -> KeyRun {
    let mut keys: Vec<(Box<[u8]>, u32)> = rows.iter().map(|(p, k)| (k.clone().into(), *p)).collect();
    keys.sort_unstable();
    let bytes = encode(&keys);
    KeyRun::built(bytes, keys.len())
}

#[test]
fn a_run_less_removed_rows_is_the_run_of_the_rows_kept() {
    let mut next = crate::test_random::below(3);
    for _ in 0..20 {
        // 2,000 rows with distinct keys in random order; some have no
        // key (NULL: not in a key's run), as a run leaves them out.
        let mut values: Vec<u32> = (0..2_000).collect();
        for i in (1..values.len()).rev() {
            values.swap(i, next(i as u64 + 1) as usize);
        }
        let rows: Vec<(u32, Option<Vec<u8>>)> = values
            .iter()
            .enumerate()
            .map(|(p, v)| (p as u32, (next(10) != 0).then(|| v.to_be_bytes().to_vec())))
            .collect();
        let with_keys = |rows: &[(u32, Option<Vec<u8>>)]| -> Vec<(u32, Vec<u8>)> {
            rows.iter().filter_map(|(p, k)| Some((*p, k.clone()?))).collect()
        };
        let (scattered, wide) = (next(300), next(50));
        let mut marks: Vec<u64> = (0..scattered).map(|_| next(2_000)).collect();
        marks.extend((700..700 + wide).chain([0, 1_999]));
        let removed = DeletedRows::of(marks);
        let kept: Vec<(u32, Option<Vec<u8>>)> = rows
            .iter()
            .filter(|(p, _)| !removed.contains(*p as u64))
            .enumerate()
            .map(|(i, (_, k))| (i as u32, k.clone()))
            .collect();
        let derived = run_of_rows(&with_keys(&rows)).without(&removed, kept.len() as u64).expect("fits");
        let built = run_of_rows(&with_keys(&kept));
        assert_eq!(derived.slice(), built.slice(), "same values, positions and checksum");
        let last_keyed = with_keys(&kept).last().expect("keyed rows").0 as u64;
        assert!(run_of_rows(&with_keys(&rows)).without(&removed, last_keyed).is_none(), "too few rows");
    }
}

#[test]
fn runs_place_their_keys_rows() {
    // Sorted keys at positions 0, 10, 20, 30 (see `run`).
    let a = run(&[b"a", b"bb", b"c", b"dd"]);
    assert_eq!(a.position(b"a"), Some(0));
    assert_eq!(a.position(b"c"), Some(20));
    assert_eq!(a.position(b"dd"), Some(30));
    assert_eq!(a.position(b"b"), None);
    let keys: Vec<(Box<[u8]>, u32)> = vec![(b"p".to_vec().into(), 7), (b"q".to_vec().into(), 3)];
    let b = KeyRun::built(encode(&keys), 2);
    assert_eq!((b.position(b"p"), b.position(b"q")), (Some(7), Some(3)));
}

/// An index run of (a INTEGER, b VARCHAR) rows, from real row-format bytes.
fn index_run(rows: &[(i32, &str)]) -> (KeyRun, KeyColumns) {
    use datafusion::arrow::array::{ArrayRef, Int32Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let schema = Schema::new(vec![Field::new("a", DataType::Int32, false), Field::new("b", DataType::Utf8, false)]);
    let key = KeyColumns::new(&schema, &["a".into(), "b".into()]).unwrap();
    let a: ArrayRef = Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.0)));
    let b: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1)));
    let mut keys: Vec<(Box<[u8]>, u32)> = Vec::new();
    key.for_each(&[a, b], |value, row| keys.push((value.into(), row as u32))).unwrap();
    keys.sort_unstable();
    (KeyRun::built(encode(&keys), keys.len()), key)
}

/// Row-format bytes of a first column value `a` (the prefix of a key).
fn prefix(a: i32) -> Vec<u8> {
    use datafusion::arrow::array::{ArrayRef, Int32Array};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let schema = Schema::new(vec![Field::new("a", DataType::Int32, false)]);
    let key = KeyColumns::new(&schema, &["a".into()]).unwrap();
    let mut out = Vec::new();
    key.for_each(&[Arc::new(Int32Array::from(vec![a])) as ArrayRef], |v, _| out = v.to_vec()).unwrap();
    out
}

#[test]
fn ranges_find_prefixes_bounds_and_repeated_values() {
    let rows = [(3, "x"), (-1, "a"), (3, "ab"), (7, "q"), (3, "abc"), (3, "ab"), (10, "z"), (-5, "m")];
    let (run, _) = index_run(&rows);
    let rows_of = |range: std::ops::Range<usize>| {
        let mut found: Vec<u64> = range.map(|i| run.position_at(i)).collect();
        found.sort_unstable();
        found
    };
    let at = |a: i32, inclusive: bool| (prefix(a), inclusive);
    fn bound(b: &(Vec<u8>, bool)) -> Option<Bound<'_>> {
        Some(Bound { value: &b.0, inclusive: b.1 })
    }
    // a = 3: every row of that prefix, the repeated (3, 'ab') twice.
    let three = at(3, true);
    assert_eq!(rows_of(run.range(bound(&three), bound(&three))), vec![0, 2, 4, 5]);
    // a > 3, a >= 3 AND a < 10, a < 3, and a range holding nothing.
    assert_eq!(rows_of(run.range(bound(&at(3, false)), None)), vec![3, 6]);
    assert_eq!(rows_of(run.range(bound(&three), bound(&at(10, false)))), vec![0, 2, 3, 4, 5]);
    assert_eq!(rows_of(run.range(None, bound(&at(3, false)))), vec![1, 7]);
    assert_eq!(rows_of(run.range(bound(&at(4, true)), bound(&at(6, true)))), Vec::<u64>::new());
    assert_eq!(rows_of(run.range(bound(&at(9, true)), bound(&at(2, true)))), Vec::<u64>::new());
    // A whole key: (3, 'ab') is not a prefix of (3, 'abc') in the row format.
    let (whole, key) = index_run(&[(3, "ab")]);
    let value = whole.iter().next().unwrap().to_vec();
    let exact = Some(Bound { value: &value, inclusive: true });
    assert_eq!(rows_of(run.range(exact, exact)), vec![2, 5]);
    assert!(key.describe(&value).unwrap().contains("ab"));
}

#[test]
fn damaged_runs_are_refused() {
    let keys: Vec<(Box<[u8]>, u32)> = vec![(b"x".to_vec().into(), 1), (b"y".to_vec().into(), 0)];
    let bytes = encode(&keys);
    assert_eq!(check(&bytes), Some(2));
    for at in [0, 9, 17, 25, HEADER + 1, bytes.len() - 1] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x40;
        assert_eq!(check(&damaged), None, "flipped byte {at}");
    }
    assert_eq!(check(&bytes[..bytes.len() - 1]), None);
    assert_eq!(check(&[]), None);
}

#[test]
fn large_runs_searched_over_their_fence_find_what_a_scan_finds() {
    // Runs of several fence strides: every value found at its row, values
    // between and beyond absent, and ranges (repeated values, ends on and
    // between samples, empty ones) equal to the values that fall in them.
    for count in [4 * 64, 4 * 64 + 1, 1000, 5003] {
        let values: Vec<u32> = (0..count as u32).map(|i| 3 * (i / 2)).collect(); // each twice
        let keys: Vec<(Box<[u8]>, u32)> =
            values.iter().enumerate().map(|(row, v)| (v.to_be_bytes().to_vec().into(), row as u32)).collect();
        let repeated = KeyRun::built(encode(&keys), keys.len());
        let distinct: Vec<Vec<u8>> = (0..count as u32).map(|i| (3 * i).to_be_bytes().to_vec()).collect();
        let distinct = run(&distinct.iter().map(|k| k.as_slice()).collect::<Vec<_>>());
        for probe in 0..3 * count as u32 + 3 {
            let key = probe.to_be_bytes();
            let expected = (probe % 3 == 0 && probe / 3 < count as u32).then(|| 10 * u64::from(probe / 3));
            assert_eq!(distinct.position(&key), expected, "{count} keys, probe {probe}");
        }
        let between = |low: u32, high: u32, inclusive: bool| {
            let (low, high) = (low.to_be_bytes(), high.to_be_bytes());
            let bound = |value| Some(Bound { value, inclusive });
            let mut rows: Vec<u64> =
                repeated.range(bound(&low[..]), bound(&high[..])).map(|i| repeated.position_at(i)).collect();
            rows.sort_unstable();
            rows
        };
        let scanned = |low: u32, high: u32, inclusive: bool| -> Vec<u64> {
            (0..count as u64)
                .filter(|&row| {
                    let v = values[row as usize];
                    if inclusive {
                        low <= v && v <= high
                    } else {
                        low < v && v < high
                    }
                })
                .collect()
        };
        let last = *values.last().unwrap();
        for (low, high) in [(0, 0), (0, last), (95, 96), (96, 96), (97, 190), (190, 191), (last, last + 5), (7, 2)] {
            for inclusive in [true, false] {
                assert_eq!(between(low, high, inclusive), scanned(low, high, inclusive), "{count}: {low}..{high}");
            }
        }
    }
}
