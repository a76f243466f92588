//! DuckDB's `format(fmt, args...)` (fmtlib's `{}` fields) and
//! `printf(fmt, args...)` (C's `%` conversions), with DuckDB's answers: a
//! NULL format or argument gives NULL; DECIMALs are formatted as DOUBLEs; a
//! conversion that does not fit its argument's type (`%d` of a string), an
//! unknown one, or a missing argument is an error naming it.
//!
//! Fields: `{}`, `{0}`, `{:spec}` with spec `[[fill]align][+][0][width][,][.precision][type]`,
//! align `<` `>` `^`, type `d x X o b e f g s`; `{{` and `}}` are braces.
//! Conversions: `%[flags][width][.precision]type`, flags `- + 0 space`,
//! type `d i u x X o e f g s c %`.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::common::{exec_err, Result};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use std::sync::Arc;

/// Which of the two functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Style {
    /// `format`: fmtlib's `{}`.
    Braces,
    /// `printf`: C's `%`.
    Percent,
}

/// `format` and `printf`.
pub fn functions() -> Vec<ScalarUDF> {
    [("format", Style::Braces), ("printf", Style::Percent)]
        .into_iter()
        .map(|(name, style)| {
            ScalarUDF::new_from_impl(Format { name, style, signature: Signature::variadic_any(Volatility::Immutable) })
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct Format {
    name: &'static str,
    style: Style,
    signature: Signature,
}

/// One argument's value in one row.
#[derive(Clone)]
enum Value {
    Int(i128),
    Float(f64),
    Text(String),
}

impl ScalarUDFImpl for Format {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        if args.is_empty() {
            return exec_err!("{}() takes a format string first", self.name);
        }
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = args.args.iter().map(|a| a.to_array(rows)).collect::<Result<Vec<_>>>()?;
        let formats = cast(&arrays[0], &DataType::Utf8)?;
        let formats = formats.as_string::<i32>();
        let values = arrays[1..].iter().map(readable).collect::<Result<Vec<_>>>()?;
        let options = FormatOptions::default();
        let shown = values
            .iter()
            .map(|(array, _)| ArrayFormatter::try_new(array.as_ref(), &options))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        // Logical nulls: a NULL literal's array has no null buffer.
        let nulls: Vec<_> = values.iter().map(|(a, _)| a.logical_nulls()).collect();
        let mut out = StringBuilder::new();
        for row in 0..rows {
            if formats.is_null(row) || nulls.iter().any(|n| n.as_ref().is_some_and(|n| n.is_null(row))) {
                out.append_null();
                continue;
            }
            let row_values: Vec<Value> =
                values.iter().zip(&shown).map(|((array, kind), text)| value_at(array, *kind, row, text)).collect();
            let text = match self.style {
                Style::Braces => braces(formats.value(row), &row_values)?,
                Style::Percent => percent(formats.value(row), &row_values)?,
            };
            out.append_value(text);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

/// How an argument's column is read.
#[derive(Clone, Copy)]
enum Kind {
    Int,
    Float,
    Text,
}

/// `array` in the type it is formatted as: integers as 64-bit, DECIMALs and
/// floats as DOUBLE, the rest as their text.
fn readable(array: &ArrayRef) -> Result<(ArrayRef, Kind)> {
    Ok(match array.data_type() {
        DataType::UInt64 => (array.clone(), Kind::Int),
        t if t.is_integer() => (cast(array, &DataType::Int64)?, Kind::Int),
        t if t.is_floating() || matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..)) => {
            (cast(array, &DataType::Float64)?, Kind::Float)
        }
        _ => (array.clone(), Kind::Text),
    })
}

fn value_at(array: &ArrayRef, kind: Kind, row: usize, text: &ArrayFormatter) -> Value {
    match kind {
        Kind::Int if array.data_type() == &DataType::UInt64 => {
            Value::Int(array.as_primitive::<datafusion::arrow::datatypes::UInt64Type>().value(row) as i128)
        }
        Kind::Int => Value::Int(array.as_primitive::<datafusion::arrow::datatypes::Int64Type>().value(row) as i128),
        Kind::Float => Value::Float(array.as_primitive::<datafusion::arrow::datatypes::Float64Type>().value(row)),
        Kind::Text => Value::Text(text.value(row).to_string()),
    }
}

/// A field's or conversion's layout.
#[derive(Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    plus: bool,
    space: bool,
    zero: bool,
    width: usize,
    thousands: bool,
    precision: Option<usize>,
    kind: Option<char>,
}

/// fmtlib's `{}` formatting of `fmt` with `values`.
fn braces(fmt: &str, values: &[Value]) -> Result<String> {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut next = 0;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let mut field = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => field.push(c),
                        None => return exec_err!("format: '{{' without a closing '}}' in \"{fmt}\""),
                    }
                }
                let (index, spec) = field.split_once(':').unwrap_or((&field, ""));
                let index = match index {
                    "" => {
                        next += 1;
                        next - 1
                    }
                    n => match n.parse::<usize>() {
                        Ok(n) => n,
                        Err(_) => {
                            return exec_err!("format: \"{{{field}}}\" is not a field (write {{}}, {{0}} or {{:spec}})")
                        }
                    },
                };
                let Some(value) = values.get(index) else {
                    return exec_err!("format: argument index \"{index}\" out of range");
                };
                out.push_str(&render(value, &brace_spec(spec)?, "format")?);
            }
            '}' => return exec_err!("format: a single '}}' in \"{fmt}\" (write '}}}}' for a brace)"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A `{:spec}`'s spec.
fn brace_spec(spec: &str) -> Result<Spec> {
    let mut s = Spec::default();
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^');
    if chars.len() >= 2 && is_align(chars[1]) {
        (s.fill, s.align, i) = (Some(chars[0]), Some(chars[1]), 2);
    } else if chars.first().is_some_and(|c| is_align(*c)) {
        (s.align, i) = (Some(chars[0]), 1);
    }
    if chars.get(i) == Some(&'+') {
        (s.plus, i) = (true, i + 1);
    }
    if chars.get(i) == Some(&'0') {
        (s.zero, i) = (true, i + 1);
    }
    (s.width, i) = number(&chars, i);
    if chars.get(i) == Some(&',') {
        (s.thousands, i) = (true, i + 1);
    }
    if chars.get(i) == Some(&'.') {
        let (p, at) = number(&chars, i + 1);
        (s.precision, i) = (Some(p), at);
    }
    if let Some(&c) = chars.get(i) {
        (s.kind, i) = (Some(c), i + 1);
    }
    if i != chars.len() {
        return exec_err!("format: \"{spec}\" is not a format spec");
    }
    Ok(s)
}

/// C's `%` formatting of `fmt` with `values`.
fn percent(fmt: &str, values: &[Value]) -> Result<String> {
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let mut next = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        if chars.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let mut s = Spec::default();
        while let Some(&c) = chars.get(i) {
            match c {
                '-' => s.align = Some('<'),
                '+' => s.plus = true,
                '0' => s.zero = true,
                ' ' => s.space = true,
                _ => break,
            }
            i += 1;
        }
        (s.width, i) = number(&chars, i);
        if chars.get(i) == Some(&'.') {
            let (p, at) = number(&chars, i + 1);
            (s.precision, i) = (Some(p), at);
        }
        let Some(&kind) = chars.get(i) else { return exec_err!("printf: \"{fmt}\" ends inside a conversion") };
        i += 1;
        // `%c` writes its number as a character: text by then.
        s.kind = Some(match kind {
            'i' | 'u' => 'd',
            'c' => 's',
            c => c,
        });
        if s.align.is_none() && !s.zero {
            s.align = Some('>');
        }
        let Some(value) = values.get(next) else {
            return exec_err!("printf: argument index \"{next}\" out of range");
        };
        next += 1;
        let value = match (kind, value) {
            ('u', Value::Int(n)) if *n < 0 => Value::Int(*n + (1i128 << 64)),
            ('c', Value::Int(n)) => Value::Text(char::from_u32(*n as u32).map(String::from).unwrap_or_default()),
            _ => value.clone(),
        };
        out.push_str(&render(&value, &s, "printf")?);
    }
    Ok(out)
}

/// The number at `chars[i..]` (0 when none) and where it ends.
fn number(chars: &[char], mut i: usize) -> (usize, usize) {
    let mut n = 0usize;
    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
        n = n.saturating_mul(10).saturating_add(d as usize);
        i += 1;
    }
    (n, i)
}

/// `value` laid out by `spec`.
fn render(value: &Value, spec: &Spec, function: &str) -> Result<String> {
    let kind = spec.kind;
    let type_name = match value {
        Value::Int(_) => "integer",
        Value::Float(_) => "float",
        Value::Text(_) => "string",
    };
    let wrong = || {
        exec_err!(
            "{function}: invalid type specifier \"{}\" for formatting a value of type {type_name}",
            kind.unwrap_or(' ')
        )
    };
    let (sign, body) = match (value, kind) {
        (Value::Int(n), None | Some('d')) => {
            (sign(*n < 0, spec), grouped(&n.unsigned_abs().to_string(), spec.thousands))
        }
        (Value::Int(n), Some('x')) => (sign(*n < 0, spec), format!("{:x}", n.unsigned_abs())),
        (Value::Int(n), Some('X')) => (sign(*n < 0, spec), format!("{:X}", n.unsigned_abs())),
        (Value::Int(n), Some('o')) => (sign(*n < 0, spec), format!("{:o}", n.unsigned_abs())),
        (Value::Int(n), Some('b')) => (sign(*n < 0, spec), format!("{:b}", n.unsigned_abs())),
        (Value::Int(n), Some('e' | 'f' | 'g')) => return render(&Value::Float(*n as f64), spec, function),
        (Value::Float(f), None) => (sign(f.is_sign_negative(), spec), shortest(f.abs())),
        (Value::Float(f), Some('f' | 'F')) => {
            let p = spec.precision.unwrap_or(6);
            (sign(f.is_sign_negative(), spec), grouped_float(&format!("{:.p$}", f.abs()), spec.thousands))
        }
        (Value::Float(f), Some('e')) => {
            (sign(f.is_sign_negative(), spec), exponent(f.abs(), spec.precision.unwrap_or(6)))
        }
        (Value::Float(f), Some('g')) => {
            (sign(f.is_sign_negative(), spec), general(f.abs(), spec.precision.unwrap_or(6)))
        }
        (Value::Text(t), None | Some('s')) => {
            let t = match spec.precision {
                Some(p) => t.chars().take(p).collect(),
                None => t.clone(),
            };
            (String::new(), t)
        }
        _ => return wrong(),
    };
    let len = sign.chars().count() + body.chars().count();
    if len >= spec.width {
        return Ok(sign + &body);
    }
    let pad = spec.width - len;
    if spec.zero && spec.align.is_none() || spec.zero && spec.align == Some('>') && !matches!(value, Value::Text(_)) {
        return Ok(sign + &"0".repeat(pad) + &body);
    }
    let fill = spec.fill.unwrap_or(' ').to_string();
    let default = if matches!(value, Value::Text(_)) { '<' } else { '>' };
    Ok(match spec.align.unwrap_or(default) {
        '<' => sign + &body + &fill.repeat(pad),
        '^' => fill.repeat(pad / 2) + &sign + &body + &fill.repeat(pad - pad / 2),
        _ => fill.repeat(pad) + &sign + &body,
    })
}

/// The sign a number is written with.
fn sign(negative: bool, spec: &Spec) -> String {
    match (negative, spec.plus, spec.space) {
        (true, _, _) => "-".into(),
        (false, true, _) => "+".into(),
        (false, false, true) => " ".into(),
        _ => String::new(),
    }
}

/// `digits` with a comma every three, when asked.
fn grouped(digits: &str, thousands: bool) -> String {
    if !thousands {
        return digits.to_string();
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn grouped_float(text: &str, thousands: bool) -> String {
    match text.split_once('.') {
        Some((whole, fraction)) => format!("{}.{fraction}", grouped(whole, thousands)),
        None => grouped(text, thousands),
    }
}

/// The shortest text that reads back as `f` (fmtlib's `{}`): plain from
/// 1e-4 up to 1e16, else with an exponent (`1e+20`).
fn shortest(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() { "nan".into() } else { "inf".into() };
    }
    if f == 0.0 || (1e-4..1e16).contains(&f) {
        return format!("{f}");
    }
    let text = format!("{f:e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// `f` as `%e` writes it: `1.234500e+03`.
fn exponent(f: f64, precision: usize) -> String {
    let text = format!("{f:.precision$e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// `f` as `%g` writes it: `precision` significant digits, trailing zeros off,
/// an exponent below 1e-4 or from 10^precision.
fn general(f: f64, precision: usize) -> String {
    let precision = precision.max(1);
    if f == 0.0 {
        return "0".into();
    }
    let exp = f.log10().floor() as i32;
    let text = if exp < -4 || exp >= precision as i32 {
        exponent(f, precision - 1)
    } else {
        let decimals = (precision as i32 - 1 - exp).max(0) as usize;
        format!("{f:.decimals$}")
    };
    strip_zeros(&text)
}

/// `text` without trailing zeros after its decimal point (nor the point).
fn strip_zeros(text: &str) -> String {
    let (number, exp) = match text.split_once('e') {
        Some((n, e)) => (n, Some(e)),
        None => (text, None),
    };
    let number = if number.contains('.') { number.trim_end_matches('0').trim_end_matches('.') } else { number };
    match exp {
        Some(e) => format!("{number}e{e}"),
        None => number.to_string(),
    }
}
