//! The functions of ENUM values (see `swingdb_storage::encoding::enums`): the cast to
//! an ENUM type, which `CAST(x AS mood)` and `x::mood` are rewritten to (see
//! [`super::enum_types`]), and DuckDB's `enum_code`, `enum_first`,
//! `enum_last` and `enum_range`, which read the type from their argument's
//! field.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{exec_err, plan_err, Result as DFResult, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use std::sync::{Arc, LazyLock};
use swingdb_storage::encoding::enums::EnumType;

/// Name of the cast to an ENUM type: `swingdb_enum(value, 'type', 'label', ...)`.
pub const CAST: &str = "swingdb_enum";
/// Name of the cast that gives NULL for a value that is no label (TRY_CAST).
pub const TRY_CAST: &str = "swingdb_try_enum";

/// The cast of text to an ENUM type given by its literal arguments.
#[derive(Debug, PartialEq, Eq, Hash)]
struct EnumCast {
    name: &'static str,
    signature: Signature,
}

/// The type `args` (name, then labels: string literals) describe.
fn described(args: &[Option<&ScalarValue>]) -> DFResult<EnumType> {
    let text = |v: &Option<&ScalarValue>| match v {
        Some(ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)) | ScalarValue::LargeUtf8(Some(s))) => {
            Some(s.clone())
        }
        _ => None,
    };
    let Some(texts) = args.iter().map(text).collect::<Option<Vec<String>>>() else {
        return plan_err!("{CAST} takes the type's name and labels as string literals");
    };
    let Some((name, labels)) = texts.split_first() else { return plan_err!("{CAST} needs the type's name") };
    Ok(EnumType::new(name, labels.to_vec())?)
}

impl ScalarUDFImpl for EnumCast {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        plan_err!("{} is typed by its arguments", self.name)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DFResult<FieldRef> {
        match args.scalar_arguments.split_first() {
            Some((_, described_by)) if !described_by.is_empty() => {
                Ok(Arc::new(described(described_by)?.field(self.name, true)))
            }
            _ => plan_err!("{} needs a value, the type's name and its labels", self.name),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let Some(enum_type) = EnumType::of_field(&args.return_field) else {
            return exec_err!("{} lost its type", self.name);
        };
        per_array(&args.args[0], |array| match self.name == TRY_CAST {
            false => Ok(enum_type.conform(array)?),
            true => tolerant_conform(&enum_type, array),
        })
    }
}

/// `array` as `enum_type`, values that are no label made NULL.
fn tolerant_conform(enum_type: &EnumType, array: &ArrayRef) -> DFResult<ArrayRef> {
    if let Ok(conformed) = enum_type.conform(array) {
        return Ok(conformed);
    }
    let text = datafusion::arrow::compute::cast(array, &DataType::Utf8)?;
    let labels: std::collections::HashSet<&str> = enum_type.labels.iter().map(String::as_str).collect();
    let kept: StringArray = text.as_string::<i32>().iter().map(|v| v.filter(|v| labels.contains(v))).collect();
    Ok(enum_type.conform(&(Arc::new(kept) as ArrayRef))?)
}

static CASTS: LazyLock<Vec<Arc<ScalarUDF>>> = LazyLock::new(|| {
    [CAST, TRY_CAST]
        .map(|name| {
            let signature = Signature::variadic_any(Volatility::Immutable);
            Arc::new(ScalarUDF::new_from_impl(EnumCast { name, signature }))
        })
        .into()
});

/// The casts to ENUM types ([`CAST`], [`TRY_CAST`]).
pub fn casts() -> Vec<Arc<ScalarUDF>> {
    CASTS.clone()
}

/// [`CAST`].
pub fn enum_cast() -> Arc<ScalarUDF> {
    CASTS[0].clone()
}

/// What one of DuckDB's enum functions gives.
#[derive(Debug, PartialEq, Eq, Hash, Clone, Copy)]
enum Asked {
    /// `enum_code(e)`: the position of each value (from 0).
    Code,
    /// `enum_first(e)`: the first label.
    First,
    /// `enum_last(e)`: the last label.
    Last,
    /// `enum_range(e)`: every label, as a list.
    Range,
}

/// One of DuckDB's functions of an ENUM value.
#[derive(Debug, PartialEq, Eq, Hash)]
struct EnumFunction {
    asked: Asked,
    signature: Signature,
}

impl EnumFunction {
    fn type_of(&self, field: &Field) -> DFResult<EnumType> {
        match EnumType::of_field(field) {
            Some(enum_type) => Ok(enum_type),
            None => plan_err!(
                "{} takes a value of an ENUM type (such as a column of one, or NULL::mood), not a {}",
                self.name(),
                crate::frontend::types::column_type_name(field)
            ),
        }
    }
}

impl ScalarUDFImpl for EnumFunction {
    fn name(&self) -> &str {
        match self.asked {
            Asked::Code => "enum_code",
            Asked::First => "enum_first",
            Asked::Last => "enum_last",
            Asked::Range => "enum_range",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DFResult<DataType> {
        plan_err!("{} is typed by its argument", self.name())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DFResult<FieldRef> {
        let enum_type = self.type_of(&args.arg_fields[0])?;
        let data_type = match self.asked {
            Asked::Code => enum_type.key_type(),
            Asked::First | Asked::Last => DataType::Utf8,
            Asked::Range => DataType::new_list(DataType::Utf8, true),
        };
        Ok(Arc::new(Field::new(self.name(), data_type, self.asked == Asked::Code)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DFResult<ColumnarValue> {
        let enum_type = self.type_of(&args.arg_fields[0])?;
        let labels = &enum_type.labels;
        Ok(ColumnarValue::Scalar(match self.asked {
            Asked::Code => return codes(&enum_type, &args.args[0]),
            Asked::First => ScalarValue::from(labels[0].as_str()),
            Asked::Last => ScalarValue::from(labels[labels.len() - 1].as_str()),
            Asked::Range => {
                let list = ListArray::new(
                    Arc::new(Field::new_list_field(DataType::Utf8, true)),
                    datafusion::arrow::buffer::OffsetBuffer::from_lengths([labels.len()]),
                    enum_type.labels_array(),
                    None,
                );
                ScalarValue::List(Arc::new(list))
            }
        }))
    }
}

/// The position of each value of `value` (of `enum_type`) among its labels.
pub fn codes(enum_type: &EnumType, value: &ColumnarValue) -> DFResult<ColumnarValue> {
    per_array(value, |array| {
        let conformed = enum_type.conform(array)?;
        Ok(conformed.as_any_dictionary().keys().slice(0, conformed.len()))
    })
}

/// `f` of `value`'s values: a scalar stays a scalar (one row's array for `f`).
pub fn per_array(value: &ColumnarValue, f: impl FnOnce(&ArrayRef) -> DFResult<ArrayRef>) -> DFResult<ColumnarValue> {
    Ok(match value {
        ColumnarValue::Array(array) => ColumnarValue::Array(f(array)?),
        ColumnarValue::Scalar(scalar) => {
            ColumnarValue::Scalar(ScalarValue::try_from_array(&f(&scalar.to_array()?)?, 0)?)
        }
    })
}

static FUNCTIONS: LazyLock<Vec<Arc<ScalarUDF>>> = LazyLock::new(|| {
    [Asked::Code, Asked::First, Asked::Last, Asked::Range]
        .map(|asked| {
            let signature = Signature::any(1, Volatility::Immutable);
            Arc::new(ScalarUDF::new_from_impl(EnumFunction { asked, signature }))
        })
        .into()
});

/// `enum_code`, `enum_first`, `enum_last` and `enum_range`.
pub fn functions() -> Vec<Arc<ScalarUDF>> {
    FUNCTIONS.clone()
}

/// `enum_code`: the analyzer rule orders ENUM values by it (see
/// `crate::optimizer::enum_order`).
pub fn enum_code() -> Arc<ScalarUDF> {
    FUNCTIONS[0].clone()
}
