//! DuckDB's names of functions: the ones DataFusion has under another name
//! are renamed in the parsed statement (`list_value` is `make_array`,
//! `strftime` is `to_char`, `a ^@ b` is `starts_with(a, b)`, `arg_max(x, y)`
//! is `first_value(x ORDER BY y DESC)` over the rows where both are set,
//! `struct_pack(a := 1)` is `named_struct('a', 1)`);
//! the others are functions of their own here (`len`, `typeof`,
//! `regexp_extract`, `date_diff`). Result columns keep the name the user
//! wrote (see `sql::frontend::output_names`).

use crate::frontend::types::sql_name;
use chrono::{DateTime, Datelike, NaiveDateTime};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, Int64Array, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, TimeUnit, TimestampMicrosecondType};
use datafusion::common::{exec_err, plan_err, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility};
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgOperator, FunctionArguments, Ident,
    ObjectName, Value, ValueWithSpan, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use std::ops::ControlFlow;
use std::sync::Arc;
use swingdb_storage::error::{Error, ErrorKind, Result};

/// DuckDB's name and DataFusion's, for functions that only differ by name.
const RENAMED: &[(&str, &str)] = &[
    ("list_value", "make_array"),
    ("list_pack", "make_array"),
    ("string_split", "string_to_array"),
    ("str_split", "string_to_array"),
    ("strftime", "to_char"),
    ("datediff", "date_diff"),
    ("list_slice", "array_slice"),
    ("split", "string_to_array"),
    ("lcase", "lower"),
    ("ucase", "upper"),
    ("strlen", "octet_length"),
    ("prefix", "starts_with"),
    ("suffix", "ends_with"),
    ("ord", "ascii"),
    ("unicode", "ascii"),
    ("regexp_matches", "regexp_like"),
    ("list_dot_product", "dot_product"),
    ("list_inner_product", "inner_product"),
    ("list_cosine_distance", "cosine_distance"),
    ("list", "array_agg"),
    ("first", "first_value"),
    ("last", "last_value"),
    ("arbitrary", "any_value"),
    ("group_concat", "string_agg"),
    ("listagg", "string_agg"),
    ("variance", "var_samp"),
    ("approx_count_distinct", "approx_distinct"),
    ("approx_quantile", "approx_percentile_cont"),
    ("fsum", "sum"),
    ("sumkahan", "sum"),
    ("kahan_sum", "sum"),
    ("favg", "avg"),
    ("array_zip", "arrays_zip"),
    ("unpivot_list", "make_array"),
    ("sum_no_overflow", "sum"),
];

/// DataFusion's name of a function DuckDB names `name`, where they differ
/// by name only.
pub fn renamed(name: &str) -> Option<&'static str> {
    RENAMED.iter().find(|(from, _)| *from == name).map(|(_, to)| *to)
}

/// DuckDB's functions that are another expression here: the name, how many
/// arguments, and the expression with `_1`, `_2` standing for them. A name
/// also in [`RENAMED`] is spelled so only with this many arguments.
const SPELLED: &[(&str, usize, &str)] = &[
    ("dayname", 1, "to_char(_1, '%A')"),
    ("strptime", 2, "CAST(to_timestamp(_1, _2) AS TIMESTAMP)"),
    ("monthname", 1, "to_char(_1, '%B')"),
    ("regexp_full_match", 2, "regexp_like(_1, '^(?:' || _2 || ')$')"),
    ("arg_max", 2, "first_value(_1 ORDER BY _2 DESC) FILTER (WHERE _1 IS NOT NULL AND _2 IS NOT NULL)"),
    ("max_by", 2, "first_value(_1 ORDER BY _2 DESC) FILTER (WHERE _1 IS NOT NULL AND _2 IS NOT NULL)"),
    ("arg_min", 2, "first_value(_1 ORDER BY _2) FILTER (WHERE _1 IS NOT NULL AND _2 IS NOT NULL)"),
    ("min_by", 2, "first_value(_1 ORDER BY _2) FILTER (WHERE _1 IS NOT NULL AND _2 IS NOT NULL)"),
    ("argmax", 2, "first_value(_1 ORDER BY _2 DESC) FILTER (WHERE _1 IS NOT NULL AND _2 IS NOT NULL)"),
    ("argmin", 2, "first_value(_1 ORDER BY _2) FILTER (WHERE _1 IS NOT NULL AND _2 IS NOT NULL)"),
    ("arg_max_null", 2, "first_value(_1 ORDER BY _2 DESC) FILTER (WHERE _2 IS NOT NULL)"),
    ("arg_min_null", 2, "first_value(_1 ORDER BY _2) FILTER (WHERE _2 IS NOT NULL)"),
    ("arg_max_nulls_last", 2, "first_value(_1 ORDER BY _2 DESC NULLS LAST)"),
    ("arg_min_nulls_last", 2, "first_value(_1 ORDER BY _2 NULLS LAST)"),
    ("unhex", 1, "decode(_1, 'hex')"),
    ("from_hex", 1, "decode(_1, 'hex')"),
    ("count_if", 1, "count(CASE WHEN _1 THEN 1 END)"),
    ("countif", 1, "count(CASE WHEN _1 THEN 1 END)"),
    ("group_concat", 1, "string_agg(_1, ',')"),
    ("listagg", 1, "string_agg(_1, ',')"),
    ("to_base64", 1, "encode(_1, 'base64')"),
    ("base64", 1, "encode(_1, 'base64')"),
    ("from_base64", 1, "decode(_1, 'base64')"),
    ("list_unique", 1, "cardinality(array_distinct(array_remove_all(_1, NULL)))"),
    ("array_unique", 1, "cardinality(array_distinct(array_remove_all(_1, NULL)))"),
    ("list_reverse_sort", 1, "array_sort(_1, 'DESC')"),
    ("count_star", 0, "count(*)"),
    ("sign", 1, "CAST(signum(_1) AS TINYINT)"),
    ("sem", 1, "stddev_pop(_1) / sqrt(count(_1))"),
    ("mod", 2, "_1 % _2"),
    ("array_reverse_sort", 1, "array_sort(_1, 'DESC')"),
    ("decimal_average", 1, "avg(_1)"),
    ("list_cosine_similarity", 2, "inner_product(_1, _2) / sqrt(inner_product(_1, _1) * inner_product(_2, _2))"),
    ("list_negative_inner_product", 2, "-inner_product(_1, _2)"),
    ("list_negative_dot_product", 2, "-inner_product(_1, _2)"),
];

/// DuckDB's functions for `LIKE ... ESCAPE`: the name, whether negated,
/// whether case-insensitive.
const LIKE_ESCAPES: &[(&str, bool, bool)] = &[
    ("like_escape", false, false),
    ("not_like_escape", true, false),
    ("ilike_escape", false, true),
    ("not_ilike_escape", true, true),
];

/// Rewrites `expr` if it is a DuckDB spelling of a function (see the module
/// documentation); an error when its arguments do not fit the spelling.
pub fn rewrite(expr: &mut Expr) -> Result<()> {
    if let Expr::BinaryOp { op: BinaryOperator::PGStartsWith, left, right } = expr {
        let (left, right) =
            (std::mem::replace(left.as_mut(), placeholder()), std::mem::replace(right.as_mut(), placeholder()));
        *expr = from_template("starts_with(_1, _2)", vec![left, right])?;
        return Ok(());
    }
    let Expr::Function(function) = expr else { return Ok(()) };
    let [part] = function.name.0.as_slice() else { return Ok(()) };
    let Some(ident) = part.as_ident() else { return Ok(()) };
    let name = ident.value.to_lowercase();
    if name == "struct_pack" {
        return struct_pack(function);
    }
    if let Some(&(_, negated, case_insensitive)) = LIKE_ESCAPES.iter().find(|(n, ..)| *n == name) {
        *expr = like_escape(&name, function, negated, case_insensitive)?;
        return Ok(());
    }
    let given = match &function.args {
        FunctionArguments::List(list) => list.args.len(),
        _ => 0,
    };
    let renamed = RENAMED.iter().find(|(from, _)| *from == name);
    let spelled = SPELLED.iter().find(|(from, count, _)| *from == name && (renamed.is_none() || *count == given));
    let Some((_, count, template)) = spelled else {
        if let Some((_, to)) = renamed {
            function.name = ObjectName::from(vec![Ident::new(*to)]);
        }
        return Ok(());
    };
    let wrong = || Error::programming(format!("{name}() takes {count} argument{}", if *count == 1 { "" } else { "s" }));
    let FunctionArguments::List(list) = &function.args else { return Err(wrong()) };
    if list.args.len() != *count || !list.clauses.is_empty() || list.duplicate_treatment.is_some() {
        return Err(wrong());
    }
    if function.over.is_some() {
        return Err(Error::new(
            ErrorKind::NotSupported,
            format!("{name}() as a window function (OVER) is not supported"),
        ));
    }
    let args = plain_args(&list.args).ok_or_else(wrong)?;
    let filter = function.filter.take();
    let mut rewritten = from_template(template, args)?;
    if let (Some(extra), Expr::Function(f)) = (filter, &mut rewritten) {
        f.filter = Some(match f.filter.take() {
            Some(own) => Box::new(Expr::BinaryOp {
                left: Box::new(Expr::Nested(own)),
                op: BinaryOperator::And,
                right: Box::new(Expr::Nested(extra)),
            }),
            None => extra,
        });
    }
    *expr = rewritten;
    Ok(())
}

/// The expressions of `args`, if none is named or `*`.
fn plain_args(args: &[FunctionArg]) -> Option<Vec<Expr>> {
    args.iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// `like_escape(s, pattern, '$')` as `s LIKE pattern ESCAPE '$'` (and the
/// negated and case-insensitive ones).
fn like_escape(name: &str, function: &Function, negated: bool, case_insensitive: bool) -> Result<Expr> {
    let wrong =
        || Error::programming(format!("{name}() takes (text, pattern, escape character), the last one constant text"));
    let FunctionArguments::List(list) = &function.args else { return Err(wrong()) };
    let args = plain_args(&list.args).ok_or_else(wrong)?;
    let [text, pattern, Expr::Value(escape)] = <[Expr; 3]>::try_from(args).map_err(|_| wrong())? else {
        return Err(wrong());
    };
    let escape_char = match &escape.value {
        Value::SingleQuotedString(s) if s.chars().count() == 1 => s.chars().next().unwrap(),
        _ => return Err(wrong()),
    };
    // DataFusion escapes with `\` only: a constant pattern is spelled anew with it.
    let pattern = match (escape_char, pattern) {
        ('\\', pattern) => pattern,
        (_, Expr::Value(ValueWithSpan { value: Value::SingleQuotedString(p), span })) => Expr::Value(ValueWithSpan {
            value: Value::SingleQuotedString(with_backslash_escapes(&p, escape_char)),
            span,
        }),
        _ => {
            return Err(Error::new(
                ErrorKind::NotSupported,
                format!("{name}(): with an escape character other than '\\' the pattern must be constant text"),
            ))
        }
    };
    let (expr, pattern) = (Box::new(Expr::Nested(Box::new(text))), Box::new(Expr::Nested(Box::new(pattern))));
    let escape_char = Some(ValueWithSpan { value: Value::SingleQuotedString("\\".into()), span: escape.span });
    Ok(match case_insensitive {
        true => Expr::ILike { negated, any: false, expr, pattern, escape_char },
        false => Expr::Like { negated, any: false, expr, pattern, escape_char },
    })
}

/// A LIKE `pattern` escaped by `escape` spelled with `\\` as its escape.
fn with_backslash_escapes(pattern: &str, escape: char) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c == escape => match chars.next() {
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push(c),
            },
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out
}

/// `struct_pack(a := 1, b := 'x')` as `named_struct('a', 1, 'b', 'x')`.
fn struct_pack(function: &mut Function) -> Result<()> {
    let wrong = || Error::programming("struct_pack takes named values: struct_pack(a := 1, b := 'x')");
    let FunctionArguments::List(list) = &mut function.args else { return Err(wrong()) };
    let mut args = Vec::with_capacity(2 * list.args.len());
    for arg in list.args.drain(..) {
        match arg {
            FunctionArg::Named {
                name,
                arg: FunctionArgExpr::Expr(value),
                operator:
                    FunctionArgOperator::Assignment | FunctionArgOperator::RightArrow | FunctionArgOperator::Equals,
            } => {
                args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::value(Value::SingleQuotedString(
                    name.value,
                )))));
                args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(value)));
            }
            _ => return Err(wrong()),
        }
    }
    if args.is_empty() {
        return Err(wrong());
    }
    list.args = args;
    function.name = ObjectName::from(vec![Ident::new("named_struct")]);
    Ok(())
}

/// What stands in for an expression taken out of the tree.
fn placeholder() -> Expr {
    Expr::value(Value::Null)
}

/// `template` parsed, with `_1`, `_2`, ... replaced by `args` (parenthesized).
fn from_template(template: &str, args: Vec<Expr>) -> Result<Expr> {
    struct Fill(Vec<Expr>);
    impl VisitorMut for Fill {
        type Break = ();
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if let Expr::Identifier(ident) = expr {
                if let Some(n) = ident.value.strip_prefix('_').and_then(|n| n.parse::<usize>().ok()) {
                    *expr = Expr::Nested(Box::new(self.0[n - 1].clone()));
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut parsed = Parser::new(&GenericDialect {})
        .try_with_sql(template)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| Error::internal(format!("function template {template}: {e}")))?;
    let _ = parsed.visit(&mut Fill(args));
    Ok(parsed)
}

/// The functions DuckDB has that DataFusion has under no name.
pub fn functions() -> Vec<ScalarUDF> {
    vec![
        ScalarUDF::new_from_impl(Len { signature: Signature::any(1, Volatility::Immutable) }),
        ScalarUDF::new_from_impl(TypeOf { signature: Signature::any(1, Volatility::Immutable) }),
        ScalarUDF::new_from_impl(RegexpExtract { signature: Signature::user_defined(Volatility::Immutable) }),
        ScalarUDF::new_from_impl(DateDiff { signature: Signature::user_defined(Volatility::Immutable) }),
    ]
}

/// `len(x)`: characters of a string, elements of a list.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Len {
    signature: Signature,
}

impl ScalarUDFImpl for Len {
    fn name(&self) -> &str {
        "len"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, args: &[DataType]) -> datafusion::common::Result<DataType> {
        match &args[0] {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => Ok(DataType::Int64),
            DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..) => Ok(DataType::Int64),
            other => plan_err!("len() takes a string or a list, not {}", sql_name(other)),
        }
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        let counted = match args.arg_fields[0].data_type() {
            DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..) => {
                datafusion::functions_nested::cardinality::cardinality_udf().invoke_with_args(args)?
            }
            _ => datafusion::functions::unicode::character_length().invoke_with_args(args)?,
        };
        counted.cast_to(&DataType::Int64, None)
    }
}

/// `typeof(x)`: the SQL name of `x`'s type.
#[derive(Debug, PartialEq, Eq, Hash)]
struct TypeOf {
    signature: Signature,
}

impl ScalarUDFImpl for TypeOf {
    fn name(&self) -> &str {
        "typeof"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _args: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(crate::frontend::types::column_type_name(
            &args.arg_fields[0],
        )))))
    }
}

/// `regexp_extract(s, pattern [, group])`: the first match of `pattern` in
/// `s` (or its capture `group`), an empty string when there is none.
#[derive(Debug, PartialEq, Eq, Hash)]
struct RegexpExtract {
    signature: Signature,
}

impl ScalarUDFImpl for RegexpExtract {
    fn name(&self) -> &str {
        "regexp_extract"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, args: &[DataType]) -> datafusion::common::Result<Vec<DataType>> {
        match args.len() {
            2 => Ok(vec![DataType::Utf8, DataType::Utf8]),
            3 => Ok(vec![DataType::Utf8, DataType::Utf8, DataType::Int64]),
            n => plan_err!("regexp_extract(string, pattern [, group]) takes 2 or 3 arguments, got {n}"),
        }
    }
    fn return_type(&self, _args: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays =
            args.args.iter().map(|a| a.to_array(rows)).collect::<datafusion::common::Result<Vec<ArrayRef>>>()?;
        let (texts, patterns) = (arrays[0].as_string::<i32>(), arrays[1].as_string::<i32>());
        let groups = arrays.get(2).map(|g| g.as_primitive::<datafusion::arrow::datatypes::Int64Type>().clone());
        let mut compiled: Option<(String, regex::Regex)> = None;
        let mut out = Vec::with_capacity(rows);
        for i in 0..rows {
            if texts.is_null(i) || patterns.is_null(i) || groups.as_ref().is_some_and(|g| g.is_null(i)) {
                out.push(None);
                continue;
            }
            let pattern = patterns.value(i);
            if compiled.as_ref().is_none_or(|(p, _)| p != pattern) {
                let re = regex::Regex::new(pattern).map_err(|e| {
                    datafusion::common::DataFusionError::Execution(format!(
                        "regexp_extract: invalid pattern '{pattern}': {e}"
                    ))
                })?;
                compiled = Some((pattern.to_string(), re));
            }
            let re = &compiled.as_ref().expect("compiled above").1;
            let group = groups.as_ref().map_or(0, |g| g.value(i));
            if group < 0 || group as usize >= re.captures_len() {
                return exec_err!("regexp_extract: the pattern '{pattern}' has no group {group}");
            }
            let found = re.captures(texts.value(i)).and_then(|c| c.get(group as usize)).map_or("", |m| m.as_str());
            out.push(Some(found.to_string()));
        }
        Ok(ColumnarValue::Array(Arc::new(StringArray::from(out))))
    }
}

/// `date_diff(part, start, end)`: how many `part` boundaries lie between
/// `start` and `end` (days between dates, months between month starts...),
/// negative when `end` is earlier; `week` counts whole weeks of days.
#[derive(Debug, PartialEq, Eq, Hash)]
struct DateDiff {
    signature: Signature,
}

/// A timestamp in microseconds, the unit `date_diff` computes in.
const MICROS: DataType = DataType::Timestamp(TimeUnit::Microsecond, None);

impl ScalarUDFImpl for DateDiff {
    fn name(&self) -> &str {
        "date_diff"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, args: &[DataType]) -> datafusion::common::Result<Vec<DataType>> {
        if args.len() != 3 {
            return plan_err!("date_diff(part, start, end) takes 3 arguments, got {}", args.len());
        }
        Ok(vec![DataType::Utf8, MICROS, MICROS])
    }
    fn return_type(&self, _args: &[DataType]) -> datafusion::common::Result<DataType> {
        Ok(DataType::Int64)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> datafusion::common::Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays =
            args.args.iter().map(|a| a.to_array(rows)).collect::<datafusion::common::Result<Vec<ArrayRef>>>()?;
        let parts = arrays[0].as_string::<i32>();
        let start = cast(&arrays[1], &MICROS)?;
        let end = cast(&arrays[2], &MICROS)?;
        let (start, end) =
            (start.as_primitive::<TimestampMicrosecondType>(), end.as_primitive::<TimestampMicrosecondType>());
        let out = (0..rows)
            .map(|i| {
                if parts.is_null(i) || start.is_null(i) || end.is_null(i) {
                    return Ok(None);
                }
                boundaries(parts.value(i), start.value(i), end.value(i)).map(Some)
            })
            .collect::<datafusion::common::Result<Int64Array>>()?;
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

/// `part` boundaries between the instants `start` and `end` (microseconds).
fn boundaries(part: &str, start: i64, end: i64) -> datafusion::common::Result<i64> {
    let at = |micros: i64| -> datafusion::common::Result<NaiveDateTime> {
        DateTime::from_timestamp_micros(micros).map(|t| t.naive_utc()).ok_or_else(|| {
            datafusion::common::DataFusionError::Execution(format!("date_diff: timestamp {micros} out of range"))
        })
    };
    let per = |unit: i64| end.div_euclid(unit) - start.div_euclid(unit);
    const SECOND: i64 = 1_000_000;
    Ok(match part.to_ascii_lowercase().as_str() {
        "year" | "years" | "yr" | "yrs" | "y" => i64::from(at(end)?.year() - at(start)?.year()),
        "quarter" | "quarters" => {
            let q = |t: NaiveDateTime| i64::from(t.year()) * 4 + i64::from(t.month0() / 3);
            q(at(end)?) - q(at(start)?)
        }
        "month" | "months" | "mon" | "mons" => {
            let m = |t: NaiveDateTime| i64::from(t.year()) * 12 + i64::from(t.month0());
            m(at(end)?) - m(at(start)?)
        }
        "week" | "weeks" | "w" => per(86_400 * SECOND) / 7,
        "day" | "days" | "d" | "dayofmonth" => per(86_400 * SECOND),
        "hour" | "hours" | "h" | "hr" | "hrs" => per(3_600 * SECOND),
        "minute" | "minutes" | "m" | "min" | "mins" => per(60 * SECOND),
        "second" | "seconds" | "s" | "sec" | "secs" => per(SECOND),
        "millisecond" | "milliseconds" | "ms" | "msec" => per(1_000),
        "microsecond" | "microseconds" | "us" | "usec" => end - start,
        _ => return exec_err!("date_diff: unknown date part '{part}'; use year, quarter, month, week, day, hour, minute, second, millisecond or microsecond"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000_000;

    #[test]
    fn boundaries_are_counted_as_duckdb_counts_them() {
        // Figures from DuckDB 2.0.1.
        let hour = DAY / 24;
        assert_eq!(boundaries("day", 23 * hour, 25 * hour).unwrap(), 1);
        assert_eq!(boundaries("hour", 24 * hour - 60_000_000, 24 * hour + 60_000_000).unwrap(), 1);
        assert_eq!(boundaries("week", 0, 13 * DAY).unwrap(), 1);
        assert_eq!(boundaries("week", 2 * DAY, 7 * DAY).unwrap(), 0);
        // 2024-01-31 to 2024-02-01, 2024-12-31 back to 2023-01-01.
        let jan31 = 19_753 * DAY;
        assert_eq!(boundaries("month", jan31, jan31 + DAY).unwrap(), 1);
        assert_eq!(boundaries("years", 20_088 * DAY, 19_358 * DAY).unwrap(), -1);
        assert_eq!(boundaries("quarter", 19_813 * DAY, 19_814 * DAY).unwrap(), 1);
        assert!(boundaries("fortnight", 0, 1).is_err());
    }

    #[test]
    fn templates_take_the_arguments_whole() {
        let e = from_template("regexp_like(_1, '^(?:' || _2 || ')$')", vec![placeholder(), placeholder()]).unwrap();
        assert_eq!(e.to_string(), "regexp_like((NULL), '^(?:' || (NULL) || ')$')");
    }
}
