use super::*;
use datafusion::arrow::array::{Int64Array, StringArray, StringViewArray};
use std::sync::Arc;

fn strings(values: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

#[test]
fn rows_get_group_ids_in_order_of_first_appearance_and_values_come_back() {
    let long = "a value longer than twelve bytes";
    let names = strings(&[Some("b"), Some("a"), None, Some("b"), Some(long), Some(""), None, Some(long)]);
    let numbers: ArrayRef =
        Arc::new(Int64Array::from(vec![Some(1), Some(1), Some(-7), Some(1), None, Some(1), Some(-7), None]));
    let mut groups = FewGroupValues::new(&[DataType::Utf8, DataType::Int64]);
    let mut ids = vec![];
    assert!(groups.intern(&[names.clone(), numbers.clone()], None, &mut ids).unwrap());
    assert_eq!(ids, vec![0, 1, 2, 0, 3, 4, 2, 3]);
    // A second batch finds the same groups and adds new ones after them.
    let more_names = strings(&[Some("a"), Some("c"), Some(long)]);
    let more_numbers: ArrayRef = Arc::new(Int64Array::from(vec![Some(1), Some(1), Some(2)]));
    assert!(groups.intern(&[more_names, more_numbers], None, &mut ids).unwrap());
    assert_eq!(ids, vec![1, 5, 6]);
    let out = groups.emit().unwrap();
    assert_eq!(
        out[0].as_ref(),
        &strings(&[Some("b"), Some("a"), None, Some(long), Some(""), Some("c"), Some(long)]) as &dyn Array
    );
    let expected: ArrayRef =
        Arc::new(Int64Array::from(vec![Some(1), Some(1), Some(-7), None, Some(1), Some(1), Some(2)]));
    assert_eq!(out[1].as_ref(), expected.as_ref());
}

#[test]
fn string_views_and_strings_of_the_same_text_are_the_same_key() {
    // A view's inline bytes are the key of the same bytes read from a string array.
    let text = ["", "x", "twelve bytes", "thirteen byte"];
    let mut plain = KeyColumn::new(DataType::Utf8);
    let mut views = KeyColumn::new(DataType::Utf8View);
    let (mut a, mut b) = (vec![], vec![]);
    plain.ids_of(&(Arc::new(StringArray::from(text.to_vec())) as ArrayRef), &mut a).unwrap();
    views.ids_of(&(Arc::new(StringViewArray::from(text.to_vec())) as ArrayRef), &mut b).unwrap();
    assert_eq!(a, vec![0, 1, 2, 3]);
    assert_eq!(a, b);
    assert_eq!(
        plain.slots.iter().filter(|s| s.1 != FREE).map(|s| s.0).collect::<std::collections::BTreeSet<_>>(),
        views.slots.iter().filter(|s| s.1 != FREE).map(|s| s.0).collect()
    );
}

#[test]
fn few_keys_each_sit_in_the_slot_their_hash_names() {
    // "N" and "R" share a slot under the first multiplier: a settled
    // table finds another, and every key is found with one probe.
    let flags = strings(&["N", "R", "A", "N", "R"].map(Some));
    let mut column = KeyColumn::new(DataType::Utf8);
    let mut ids = vec![];
    column.ids_of(&flags, &mut ids).unwrap();
    assert_eq!(ids, vec![0, 1, 2, 0, 1]);
    let at_home = |c: &KeyColumn| {
        let mask = c.slots.len() - 1;
        c.slots.iter().enumerate().filter(|(_, s)| s.1 != FREE).all(|(at, s)| slot_of(s.0, c.seed, mask) == at)
    };
    assert!(at_home(&column));
    // Up to SETTLED_KEYS keys stay so; more are still all found.
    let numbers: ArrayRef = Arc::new(Int64Array::from((0..SETTLED_KEYS as i64).collect::<Vec<_>>()));
    let mut column = KeyColumn::new(DataType::Int64);
    column.ids_of(&numbers, &mut ids).unwrap();
    assert!(at_home(&column));
    let more: ArrayRef = Arc::new(Int64Array::from((0..1000).rev().collect::<Vec<i64>>()));
    column.ids_of(&more, &mut ids).unwrap();
    let expected: Vec<u32> = (0..1000u32)
        .rev()
        .map(|v| if v < SETTLED_KEYS as u32 { v } else { 1000 + SETTLED_KEYS as u32 - 1 - v })
        .collect();
    assert_eq!(ids, expected);
    assert_eq!(column.len(), 1000);
}

#[test]
fn one_byte_values_and_other_values_of_a_column_get_one_id_each() {
    let numbers: ArrayRef = Arc::new(Int64Array::from(vec![
        Some(255),
        Some(256),
        Some(-1),
        Some(0),
        None,
        Some(255),
        Some(-1),
        Some(256),
        Some(0),
    ]));
    let mut column = KeyColumn::new(DataType::Int64);
    let mut ids = vec![];
    column.ids_of(&numbers, &mut ids).unwrap();
    assert_eq!(ids, vec![0, 1, 2, 3, 4, 0, 2, 1, 3]);
    let text = strings(&[Some("R"), Some("RR"), Some(""), Some("R"), Some("RR"), Some("")]);
    let mut column = KeyColumn::new(DataType::Utf8);
    column.ids_of(&text, &mut ids).unwrap();
    assert_eq!(ids, vec![0, 1, 2, 0, 1, 2]);
    // The same one-byte string seen as a view (found through the bytes
    // table) and as a key (through the slots) is one id.
    let mut column = KeyColumn::new(DataType::Utf8View);
    let view: ArrayRef = Arc::new(StringViewArray::from(vec!["q", "R"]));
    column.ids_of(&view, &mut ids).unwrap();
    assert_eq!(column.id(byte_key(b'R'), || unreachable!()).unwrap(), 1);
}

#[test]
fn a_column_of_one_byte_strings_gets_ids_in_order_of_first_appearance() {
    // All one byte long: the batch's bytes are registered first, in the
    // order they appear, then looked up; a later batch adds new ones after.
    let mut column = KeyColumn::new(DataType::Utf8);
    let mut ids = vec![];
    column.ids_of(&strings(&["R", "N", "A", "N", "R"].map(Some)), &mut ids).unwrap();
    assert_eq!(ids, vec![0, 1, 2, 1, 0]);
    column.ids_of(&strings(&["Z", "A", "B", "Z"].map(Some)), &mut ids).unwrap();
    assert_eq!(ids, vec![3, 2, 4, 3]);
    // A slice (offsets not starting at 0), and a batch with a longer value.
    let sliced = strings(&["x", "B", "R", "Q"].map(Some)).slice(1, 3);
    column.ids_of(&sliced, &mut ids).unwrap();
    assert_eq!(ids, vec![4, 0, 5]);
    column.ids_of(&strings(&["Q", "QQ", "N"].map(Some)), &mut ids).unwrap();
    assert_eq!(ids, vec![5, 6, 1]);
    let values: Vec<_> = column.values.iter().map(|v| v.to_string()).collect();
    assert_eq!(values, ["R", "N", "A", "Z", "B", "Q", "QQ"]);
}

#[test]
fn rows_a_mask_drops_add_no_group() {
    let flags = strings(&["x", "y", "x", "z", "y"].map(Some));
    let mask = BooleanArray::from(vec![false, true, false, true, true]);
    let mut groups = FewGroupValues::new(&[DataType::Utf8]);
    let mut ids = vec![];
    assert!(groups.intern(&[flags], Some(&mask), &mut ids).unwrap());
    assert_eq!(groups.len(), 2);
    assert_eq!((ids[1], ids[3], ids[4]), (0, 1, 0));
    assert_eq!(groups.emit().unwrap()[0].as_ref(), &strings(&[Some("y"), Some("z")]) as &dyn Array);
}

#[test]
fn a_column_of_many_values_widens_the_table_and_keeps_every_group() {
    let mut groups = FewGroupValues::new(&[DataType::Int64, DataType::Utf8]);
    let numbers: ArrayRef = Arc::new(Int64Array::from((0..500).collect::<Vec<i64>>()));
    let flags = strings(&(0..500).map(|i| Some(if i % 2 == 0 { "even" } else { "odd" })).collect::<Vec<_>>());
    let mut ids = vec![];
    assert!(groups.intern(&[numbers.clone(), flags.clone()], None, &mut ids).unwrap());
    assert_eq!(ids, (0..500).collect::<Vec<usize>>());
    assert!(groups.intern(&[numbers, flags], None, &mut ids).unwrap());
    assert_eq!(ids, (0..500).collect::<Vec<usize>>());
    assert_eq!(groups.len(), 500);
}

#[test]
fn values_too_many_for_one_table_add_no_group_and_say_so() {
    let mut groups = FewGroupValues::new(&[DataType::Int64, DataType::Int64]);
    let few: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let mut ids = vec![];
    assert!(groups.intern(&[few.clone(), few], None, &mut ids).unwrap());
    // 300 x 300 values need 9 + 9 bits: more than the table has.
    let many: ArrayRef = Arc::new(Int64Array::from((0..300).collect::<Vec<i64>>()));
    assert!(!groups.intern(&[many.clone(), many], None, &mut ids).unwrap());
    assert_eq!(groups.len(), 2);
    assert_eq!(groups.emit().unwrap()[0].len(), 2);
}
