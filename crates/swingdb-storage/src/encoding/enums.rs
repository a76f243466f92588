//! ENUM types: a column whose values are one of a fixed list of labels, in
//! the order declared (`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`).
//!
//! Such a column is an Arrow dictionary of strings whose dictionary is the
//! labels, in order, so each row's key is its label's position: pyarrow hands
//! it to pandas as an ordered `Categorical` whose codes are the stored keys.
//! The keys are signed (pandas' codes are) and as narrow as the labels allow.
//! The field's metadata names the type and lists its labels, so a segment
//! file, a snapshot or another process reads the order from the schema alone.
//!
//! Arrow's kernels merge or concatenate the dictionaries of arrays that do
//! not share one, which would break "key = position": every enum array made
//! here shares one dictionary per label list ([`EnumType::labels_array`]),
//! and [`EnumType::conform`] brings any other array back to it.

use crate::error::{Error, Result};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, DictionaryArray, PrimitiveArray, StringArray};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    ArrowDictionaryKeyType, DataType, Field, Int16Type, Int32Type, Int64Type, Int8Type,
};
use datafusion::common::HashMap;
use std::collections::HashMap as StdHashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// Field metadata key naming a column's ENUM type.
pub const ENUM_KEY: &str = "swingdb.enum";
/// Field metadata key holding a column's ENUM labels, as a JSON array.
pub const LABELS_KEY: &str = "swingdb.enum.labels";

/// Most labels an ENUM type may have (what 32-bit signed keys address is far
/// more; this keeps a type's metadata and lookups small).
pub const MAX_LABELS: usize = 1 << 20;

/// An ENUM type: its name (empty for `ENUM('a', 'b')` written inline) and labels.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnumType {
    /// The name it was created with.
    pub name: String,
    /// The labels, in the order declared.
    pub labels: Arc<[String]>,
}

/// The dictionary arrays shared by every enum array of one label list.
static LABEL_ARRAYS: LazyLock<Mutex<StdHashMap<Arc<[String]>, ArrayRef>>> = LazyLock::new(Default::default);

impl EnumType {
    /// The type `name` of `labels`, refused when they are empty, repeat or are too many.
    pub fn new(name: &str, labels: Vec<String>) -> Result<Self> {
        if labels.is_empty() {
            return Err(Error::programming(format!("ENUM type '{name}' needs at least one label")));
        }
        if labels.len() > MAX_LABELS {
            return Err(Error::programming(format!("ENUM type '{name}' has more than {MAX_LABELS} labels")));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(twice) = labels.iter().find(|l| !seen.insert(l.as_str())) {
            return Err(Error::programming(format!("ENUM type '{name}' lists the label '{twice}' twice")));
        }
        Ok(Self { name: name.to_string(), labels: labels.into() })
    }

    /// The type of a column, from its field's metadata; `None` for other columns.
    pub fn of_field(field: &Field) -> Option<Self> {
        let DataType::Dictionary(_, value) = field.data_type() else { return None };
        if value.as_ref() != &DataType::Utf8 {
            return None;
        }
        let metadata = field.metadata();
        let labels: Vec<String> = serde_json::from_str(metadata.get(LABELS_KEY)?).ok()?;
        Self::new(metadata.get(ENUM_KEY)?, labels).ok()
    }

    /// The key type of its columns: the narrowest signed integer that
    /// addresses every label.
    pub fn key_type(&self) -> DataType {
        match self.labels.len() {
            n if n <= i8::MAX as usize + 1 => DataType::Int8,
            n if n <= i16::MAX as usize + 1 => DataType::Int16,
            _ => DataType::Int32,
        }
    }

    /// The Arrow type of its columns.
    pub fn data_type(&self) -> DataType {
        DataType::Dictionary(Box::new(self.key_type()), Box::new(DataType::Utf8))
    }

    /// A column `column` of this type.
    pub fn field(&self, column: &str, nullable: bool) -> Field {
        let labels = serde_json::to_string(&self.labels).expect("labels serialize");
        let metadata = [(ENUM_KEY.to_string(), self.name.clone()), (LABELS_KEY.to_string(), labels)];
        Field::new(column, self.data_type(), nullable)
            .with_dict_is_ordered(true)
            .with_metadata(metadata.into_iter().collect())
    }

    /// How SQL shows it, as DuckDB does: `ENUM('sad', 'ok', 'happy')`.
    pub fn sql_name(&self) -> String {
        let quoted: Vec<String> = self.labels.iter().map(|l| format!("'{}'", l.replace('\'', "''"))).collect();
        format!("ENUM({})", quoted.join(", "))
    }

    /// The dictionary every array of this type shares: its labels, in order.
    pub fn labels_array(&self) -> ArrayRef {
        let mut arrays = LABEL_ARRAYS.lock().unwrap_or_else(|p| p.into_inner());
        arrays
            .entry(self.labels.clone())
            .or_insert_with(|| Arc::new(StringArray::from_iter_values(self.labels.iter())))
            .clone()
    }

    /// The position of each label, for lookups.
    fn positions(&self) -> HashMap<&str, usize> {
        self.labels.iter().enumerate().map(|(i, l)| (l.as_str(), i)).collect()
    }

    /// `array` (text, a dictionary of text, or an array of this type) as an
    /// array of this type; a value that is not a label is a `DataError`.
    pub fn conform(&self, array: &ArrayRef) -> Result<ArrayRef> {
        let labels = self.labels_array();
        if let Some(dictionary) = array.as_any_dictionary_opt() {
            if array.data_type() == &self.data_type() && same_strings(dictionary.values(), &labels) {
                return Ok(match Arc::ptr_eq(dictionary.values(), &labels) {
                    true => array.clone(),
                    false => dictionary.with_values(labels),
                });
            }
        }
        let strings = cast(array, &DataType::Utf8)
            .map_err(|_| Error::data(format!("a {} cannot be a value of {}", array.data_type(), self.shown())))?;
        let strings = strings.as_string::<i32>();
        let positions = self.positions();
        let mut keys = Vec::with_capacity(strings.len());
        for i in 0..strings.len() {
            keys.push(match strings.is_valid(i) {
                true => match positions.get(strings.value(i)) {
                    Some(&p) => p,
                    None => return Err(self.not_a_label(strings.value(i))),
                },
                false => 0,
            });
        }
        Ok(self.over_labels(&keys, strings.nulls().cloned()))
    }

    /// The values at the label positions `codes` (integers, as `enum_code`
    /// gives them); NULL, or a position beyond the labels, is NULL.
    pub fn from_codes(&self, codes: &ArrayRef) -> Result<ArrayRef> {
        let codes = cast(codes, &DataType::Int64)?;
        let codes = codes.as_primitive::<Int64Type>();
        let at = |i: usize| usize::try_from(codes.value(i)).ok().filter(|&p| p < self.labels.len());
        let keys: Vec<usize> = (0..codes.len()).map(|i| at(i).unwrap_or(0)).collect();
        let valid = NullBuffer::from_iter((0..codes.len()).map(|i| codes.is_valid(i) && at(i).is_some()));
        Ok(self.over_labels(&keys, Some(valid)))
    }

    /// The array of label positions `keys` (each below the labels' count), `nulls` NULL.
    fn over_labels(&self, keys: &[usize], nulls: Option<NullBuffer>) -> ArrayRef {
        let labels = self.labels_array();
        match self.key_type() {
            DataType::Int8 => dictionary_of::<Int8Type>(keys, nulls, labels),
            DataType::Int16 => dictionary_of::<Int16Type>(keys, nulls, labels),
            _ => dictionary_of::<Int32Type>(keys, nulls, labels),
        }
    }

    /// The error of `value`, which is not one of its labels.
    pub fn not_a_label(&self, value: &str) -> Error {
        Error::data(format!("'{value}' is not a value of {}", self.shown()))
    }

    /// The type in a message: its name and labels.
    fn shown(&self) -> String {
        match self.name.is_empty() {
            true => self.sql_name(),
            false => format!("ENUM type {} {}", self.name, &self.sql_name()[4..]),
        }
    }
}

/// Whether two string arrays hold the same values (an enum's dictionary is small).
fn same_strings(a: &ArrayRef, b: &ArrayRef) -> bool {
    Arc::ptr_eq(a, b)
        || (a.len() == b.len()
            && a.as_string_opt::<i32>()
                .zip(b.as_string_opt::<i32>())
                .is_some_and(|(a, b)| a.null_count() == 0 && (0..a.len()).all(|i| a.value(i) == b.value(i))))
}

/// The dictionary array of `keys` (label positions, which fit `K`) over `labels`.
fn dictionary_of<K: ArrowDictionaryKeyType>(keys: &[usize], nulls: Option<NullBuffer>, labels: ArrayRef) -> ArrayRef {
    let keys: Vec<K::Native> = keys
        .iter()
        .map(|&k| datafusion::arrow::datatypes::ArrowNativeType::from_usize(k).expect("a position fits the key type"))
        .collect();
    let keys = PrimitiveArray::<K>::new(keys.into(), nulls);
    // Safety: every key is a label's position, below the labels' length.
    Arc::new(unsafe { DictionaryArray::<K>::new_unchecked(keys, labels) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mood() -> EnumType {
        EnumType::new("mood", vec!["sad".into(), "ok".into(), "happy".into()]).unwrap()
    }

    #[test]
    fn a_field_round_trips_its_type() {
        let field = mood().field("m", true);
        assert_eq!(EnumType::of_field(&field), Some(mood()));
        assert!(field.dict_is_ordered().unwrap());
        assert_eq!(EnumType::of_field(&Field::new("m", DataType::Utf8, true)), None);
        assert_eq!(mood().sql_name(), "ENUM('sad', 'ok', 'happy')");
    }

    #[test]
    fn labels_are_checked() {
        assert!(EnumType::new("e", vec![]).is_err());
        let twice = EnumType::new("e", vec!["a".into(), "a".into()]).unwrap_err();
        assert!(twice.to_string().contains("'a' twice"), "{twice}");
        let wide = EnumType::new("e", (0..200).map(|i| i.to_string()).collect()).unwrap();
        assert_eq!(wide.key_type(), DataType::Int16);
        assert_eq!(mood().key_type(), DataType::Int8);
    }

    #[test]
    fn text_conforms_to_positions_over_one_shared_dictionary() {
        let text: ArrayRef = Arc::new(StringArray::from(vec![Some("happy"), None, Some("sad")]));
        let conformed = mood().conform(&text).unwrap();
        let dictionary = conformed.as_dictionary::<Int8Type>();
        assert_eq!(dictionary.keys().values().to_vec()[..], [2, 0, 0]);
        assert!(dictionary.is_null(1));
        assert!(Arc::ptr_eq(dictionary.values(), &mood().labels_array()));
        // An array of another dictionary is mapped by value.
        let other = cast(&text, &mood().data_type()).unwrap();
        let again = mood().conform(&other).unwrap();
        assert_eq!(again.as_dictionary::<Int8Type>().keys().values().to_vec()[..], [2, 0, 0]);
        // And back from positions, one beyond the labels NULL.
        let codes: ArrayRef = Arc::new(datafusion::arrow::array::Int8Array::from(vec![Some(2), None, Some(3)]));
        let labelled = cast(&mood().from_codes(&codes).unwrap(), &DataType::Utf8).unwrap();
        assert_eq!(labelled.as_ref(), &StringArray::from(vec![Some("happy"), None, None]) as &dyn Array);
        let err = mood().conform(&(Arc::new(StringArray::from(vec!["meh"])) as ArrayRef)).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Data);
        assert!(err.to_string().contains("'meh' is not a value of ENUM type mood ('sad', 'ok', 'happy')"), "{err}");
    }

    #[test]
    fn pieces_over_equal_dictionaries_are_written_as_one_segment_that_keeps_the_type() {
        // Pieces read from two segments hold two copies of the labels
        // (compaction): the file gets one dictionary, and its schema the type.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.arrow");
        let schema = Arc::new(datafusion::arrow::datatypes::Schema::new(vec![mood().field("m", true)]));
        let piece = |values: Vec<i8>| {
            let labels: ArrayRef = Arc::new(StringArray::from_iter_values(mood().labels.iter()));
            let keys = PrimitiveArray::<Int8Type>::from(values);
            let column: ArrayRef = Arc::new(DictionaryArray::<Int8Type>::try_new(keys, labels).unwrap());
            datafusion::arrow::array::RecordBatch::try_new(schema.clone(), vec![column]).unwrap()
        };
        let pieces = [piece(vec![2, 0]), piece(vec![1])];
        let meta = crate::segment::write::write_segment(&path, &schema, &pieces).unwrap();
        assert!(!meta.encoded);
        let segment = crate::MappedSegment::open(&path, &meta, true).unwrap();
        assert_eq!(EnumType::of_field(segment.schema().field(0)), Some(mood()));
        let read = segment.batches(None).unwrap();
        let column = read[0].column(0).as_dictionary::<Int8Type>();
        assert_eq!(column.keys().values().to_vec()[..], [2, 0, 1]);
        assert_eq!(column.values().as_ref(), mood().labels_array().as_ref());
    }
}
