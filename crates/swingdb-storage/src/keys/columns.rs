//! A key's columns (PRIMARY KEY, UNIQUE, FOREIGN KEY) and their values as
//! Arrow row-format bytes, which compare equal exactly when the values do:
//! what the key indexes ([`crate::keys`]), the persisted key runs
//! ([`crate::keys::runs`]) and the foreign-key checks compare.

use crate::error::{Error, Result};
use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::datatypes::Schema;
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;

/// A key's columns of a table and the converter of their values to
/// row-format bytes (which compare equal exactly when the values do).
pub struct KeyColumns {
    /// The key's column names.
    names: Vec<String>,
    /// The key's column positions in the table.
    pub positions: Vec<usize>,
    converter: RowConverter,
}

impl KeyColumns {
    /// The key made of `columns` (names) of a table shaped `schema`.
    pub fn new(schema: &Schema, columns: &[String]) -> Result<Self> {
        let positions = columns
            .iter()
            .map(|c| schema.index_of(c).map_err(|_| Error::corruption(format!("a key names a missing column '{c}'"))))
            .collect::<Result<Vec<usize>>>()?;
        let fields = positions.iter().map(|&i| SortField::new(schema.field(i).data_type().clone())).collect();
        Ok(Self { names: columns.to_vec(), positions, converter: RowConverter::new(fields)? })
    }

    /// `value` (row-format bytes of this key) as SQL readers see it: `a = 1, b = x`.
    pub fn describe(&self, value: &[u8]) -> Result<String> {
        let parser = self.converter.parser();
        let arrays = self.converter.convert_rows([parser.parse(value)])?;
        describe_row(self.names.iter().zip(&arrays), 0)
    }

    /// Calls `f(key, row)` for each row of `key_columns` (the key's arrays, in
    /// order) whose values are all non-NULL: NULLs are distinct from
    /// everything, each other included, so they never collide.
    pub fn for_each(&self, key_columns: &[ArrayRef], f: impl FnMut(&[u8], usize)) -> Result<()> {
        self.for_each_where(key_columns, true, f)
    }

    /// [`Self::for_each`], NULLs included unless `skip_nulls` (a NULL is
    /// its own row-format value, sorting before every other).
    pub fn for_each_where(
        &self,
        key_columns: &[ArrayRef],
        skip_nulls: bool,
        mut f: impl FnMut(&[u8], usize),
    ) -> Result<()> {
        let rows = self.converter.convert_columns(key_columns)?;
        for row in 0..rows.num_rows() {
            if !skip_nulls || !key_columns.iter().any(|c| c.is_null(row)) {
                f(rows.row(row).as_ref(), row);
            }
        }
        Ok(())
    }
}

/// Row `row` of named columns as error messages show it: `a = 1, b = x`.
pub fn describe_row<'a>(columns: impl IntoIterator<Item = (&'a String, &'a ArrayRef)>, row: usize) -> Result<String> {
    let shown =
        columns.into_iter().map(|(name, array)| Ok(format!("{name} = {}", ScalarValue::try_from_array(array, row)?)));
    Ok(shown.collect::<Result<Vec<_>>>()?.join(", "))
}
