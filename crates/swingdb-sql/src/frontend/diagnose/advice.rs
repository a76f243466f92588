//! DataFusion's and Arrow's messages said in the user's terms: SQL type
//! names instead of Arrow's (`VARCHAR`, not `Utf8`), no Rust syntax trees or
//! "please file a bug" sentences for mistakes in the SQL, the table and
//! counts of an INSERT that gives the wrong number of values, and the fix
//! where there is one.

use crate::frontend::suggest::closest;
use crate::frontend::types::sql_name;
use datafusion::arrow::datatypes::DataType;
use datafusion::sql::sqlparser::ast::{SetExpr, Statement};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use regex::Regex;
use std::str::FromStr;
use std::sync::LazyLock;
use swingdb_storage::error::{Error, ErrorKind};

/// `err` said in the user's terms (see the module documentation); `sql` is
/// the statement's text.
pub(super) fn advise(err: Error, sql: &str) -> Error {
    let err = rephrase(err, sql);
    let message = without_internals(err.message());
    let message = sql_types(&message);
    if message == err.message() {
        err
    } else {
        err.with_message(message)
    }
}

/// The rules that rewrite one kind of message each.
fn rephrase(err: Error, sql: &str) -> Error {
    let message = err.message().to_string();
    if let Some(rest) = message.strip_prefix("Column in SELECT must be in GROUP BY or an aggregate function: ") {
        // "... column \"t.name\" must appear in the GROUP BY clause ..."
        if let Some(column) = rest.split('"').nth(1) {
            let short = column.rsplit('.').next().unwrap_or(column);
            return err.with_message(format!(
                "column \"{short}\" must appear in the GROUP BY clause or be used in an aggregate function. \
                 Either add it to the GROUP BY list (GROUP BY {short}), or use any_value({short}) if any of its values will do"
            ));
        }
    }
    if let Some(rest) = message.strip_prefix("Conversion error: Cannot cast string '") {
        // Arrow names types its own way ("Int32"); say it in SQL.
        if let Some((value, tail)) = rest.split_once("' to value of ") {
            let arrow = tail.trim_end_matches(" type");
            let shown = DataType::from_str(arrow).map_or_else(|_| arrow.to_string(), |t| sql_name(&t));
            return err.with_message(format!("could not convert the string '{value}' to {shown}"));
        }
    }
    if let Some(rest) = message.strip_prefix("Ambiguous reference to unqualified field ") {
        return err.with_message(format!(
            "column \"{rest}\" is ambiguous: more than one table in FROM has it; qualify it with the table's name or alias (like other_table.{rest})"
        ));
    }
    if let Some(caps) = VALUES_COUNT.captures(&message) {
        let (given, row, expected) = (&caps[1], caps[2].parse::<usize>().unwrap_or(0) + 1, &caps[3]);
        return err.with_message(insert_count(sql, given, row, expected).unwrap_or_else(|| {
            format!("row {row} of VALUES has {given} values but the rows before it have {expected}; give every row the same number of values")
        }));
    }
    if let Some(caps) = CSV_VALUE.captures(&message) {
        let (value, ty, column, line, row) = (
            &caps[1],
            &caps[2],
            caps[3].parse::<u64>().unwrap_or(0) + 1,
            caps[4].parse::<u64>().unwrap_or(0) + 1,
            &caps[5],
        );
        return err.with_message(format!(
            "could not read '{value}' as {ty}: column {column} on line {line} of the file ({row}); \
             give that column another type (types = {{'name': 'VARCHAR'}}) or a NULL text (nullstr = '...')"
        ));
    }
    if let Some(caps) = DUPLICATE_FIELD.captures(&message) {
        return err
            .with_message(format!("the column name \"{}\" is given twice; give each column its own name", &caps[1]));
    }
    if let Some(caps) = ORDER_POSITION.captures(&message) {
        return err.with_message(format!(
            "ORDER BY {} refers to no column: the select list has {} (positions count from 1)",
            &caps[1], &caps[2]
        ));
    }
    if let Some(caps) = GROUP_POSITION.captures(&message) {
        return err.with_message(format!(
            "GROUP BY {} refers to no column: the select list has {} (positions count from 1)",
            &caps[1], &caps[2]
        ));
    }
    if let Some(caps) = SAME_SUGGESTION.captures(&message) {
        if caps[1] == caps[2] {
            let name = &caps[1];
            return err.with_message(format!(
                "{name}() is a window function: it needs an OVER clause, as in {name}() OVER (ORDER BY ...)"
            ));
        }
    }
    if let Some(caps) = UNKNOWN_TYPE.captures(&message) {
        // A misspelling is the user's mistake; a real type this engine lacks
        // (UUID, say) is not supported.
        let typed = caps[1].to_string();
        let misspelled = |close: &&str| {
            strsim::osa_distance(&typed.to_lowercase(), &close.to_lowercase()) <= typed.len().div_ceil(3)
        };
        return match closest(&typed, SQL_TYPES.iter().copied()).filter(misspelled) {
            Some(close) => err
                .with_message(format!("type '{typed}' does not exist. Did you mean {close}?"))
                .with_kind(ErrorKind::Programming),
            None => err.with_message(format!("type '{typed}' is not supported (types: {})", SQL_TYPES.join(", "))),
        };
    }
    if let Some(caps) = UNSUPPORTED_NODE.captures(&message) {
        let what = caps[1].to_uppercase();
        let fix = match what.as_str() {
            "PIVOT" => "; aggregate with CASE instead, as in sum(CASE WHEN k = 'a' THEN v END) AS a",
            "UNPIVOT" => "; combine one SELECT per column with UNION ALL instead",
            _ => "",
        };
        return err.with_message(format!("{what} is not supported{fix}"));
    }
    if message.starts_with("Substring without for/from is not valid") {
        return err.with_message("substr() needs a start position: substr(string, start [, length])");
    }
    err
}

/// What DataFusion adds for its own bugs, a function's failed signature
/// matches listed one by one, and Rust syntax trees printed whole: none of
/// it helps someone whose SQL is wrong.
fn without_internals(message: &str) -> String {
    let mut message = message.to_string();
    if let Some(at) = message.find("No function matches the given name") {
        if message[..at].contains("failed to match any signature") || message[..at].contains("(DataType: ") {
            message = message[at..].to_string();
        }
    }
    message = message.replace("Internal error: ", "");
    if let Some(at) = message.find("This issue was likely caused by a bug in DataFusion's code.") {
        let tail = &message[at..];
        let end = tail.find("/issues.").map_or(tail.len(), |e| e + "/issues.".len());
        message = format!("{}{}", &message[..at], tail[end..].trim_start());
    }
    if message.contains("Span(Location(") || message.contains("Ident { value:") {
        if let Some(m) = DEBUG_DUMP.find(&message) {
            message = message[..m.start()].trim_end_matches([' ', ':']).to_string();
        }
    }
    message = message.replace("type_coercion: ", "");
    message.trim_end().to_string()
}

/// `message` with Arrow's type names (`Utf8`, `Int64`, `Decimal128(10, 2)`)
/// replaced by SQL's (`VARCHAR`, `BIGINT`, `DECIMAL(10,2)`).
fn sql_types(message: &str) -> String {
    ARROW_TYPE
        .replace_all(message, |caps: &regex::Captures| {
            let arrow = &caps[0];
            DataType::from_str(arrow).map_or_else(|_| arrow.to_string(), |t| sql_name(&t))
        })
        .replace(" (DataType: ", " (")
}

/// The message for an INSERT whose row `row` has `given` values where
/// `expected` were wanted, naming the table and whether columns were listed.
fn insert_count(sql: &str, given: &str, row: usize, expected: &str) -> Option<String> {
    let statements = Parser::new(&GenericDialect {}).try_with_sql(sql).and_then(|mut p| p.parse_statements()).ok()?;
    let insert = statements.iter().find_map(|s| match s {
        Statement::Insert(insert) => {
            let SetExpr::Values(values) = insert.source.as_ref()?.body.as_ref() else { return None };
            values.rows.iter().any(|r| r.len().to_string() == given).then_some(insert)
        }
        _ => None,
    })?;
    let table = insert.table.to_string();
    let row_part = if row > 1 { format!("row {row} of VALUES") } else { "VALUES".to_string() };
    Some(if insert.columns.is_empty() {
        format!(
            "table \"{table}\" has {expected} columns but {row_part} gives {given} values; give a value for every column, \
             or name the columns you give values for (INSERT INTO {table} (a, b) VALUES ...)"
        )
    } else {
        format!("INSERT INTO {table} names {expected} columns but {row_part} gives {given} values; give one value per named column")
    })
}

/// SQL type names suggested for a misspelled one.
const SQL_TYPES: &[&str] = &[
    "BOOLEAN",
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "REAL",
    "DOUBLE",
    "DECIMAL",
    "NUMERIC",
    "VARCHAR",
    "TEXT",
    "BLOB",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMPTZ",
    "INTERVAL",
    "FLOAT",
];

static VALUES_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Inconsistent data length across values list: got (\d+) values in row (\d+) but expected (\d+)")
        .expect("valid")
});
/// Arrow's CSV reader: "Error while parsing value 'x' as type 'INTEGER' for
/// column 0 at line 3. Row data: '[x,cy]'" (column and line from 0, the
/// header line counted).
static CSV_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"Error while parsing value '(.*)' as type '?([^']+?)'? for column (\d+) at line (\d+)\. Row data: '\[(.*)\]'",
    )
    .expect("valid")
});
static DUPLICATE_FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"duplicate unqualified field name (\S+)").expect("valid"));
static ORDER_POSITION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Order by column out of bounds, specified: (\d+), max: (\d+)").expect("valid"));
static GROUP_POSITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Cannot find column with position (\d+) in SELECT clause. Valid columns: 1 to (\d+)").expect("valid")
});
static SAME_SUGGESTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Invalid function '(\w+)'\. Did you mean '(\w+)'\?").expect("valid"));
static UNKNOWN_TYPE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^Unsupported SQL type (\w+)$").expect("valid"));
static UNSUPPORTED_NODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^Unsupported ast node (\w+)").expect("valid"));
/// Where a printed Rust value starts: `Name {`, `Name(` followed by more of
/// it.
static DEBUG_DUMP: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Z][A-Za-z]*(?: \{|\()").expect("valid"));
/// Arrow's type names as Arrow prints them.
static ARROW_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:Utf8View\b|LargeUtf8\b|Utf8\b|U?Int(?:8|16|32|64)\b|Float(?:16|32|64)\b|Boolean\b|Date(?:32|64)\b|Decimal(?:32|64|128|256)\(\d+, -?\d+\)|Timestamp\((?:s|ms|µs|us|ns)(?:, \x22[^\x22]*\x22)?\)|Time(?:32|64)\((?:s|ms|µs|us|ns)\)|LargeBinary|BinaryView|Binary\b)",
    )
    .expect("valid")
});

#[cfg(test)]
mod tests {
    use super::*;

    fn said(message: &str, sql: &str) -> String {
        advise(Error::programming(message), sql).message().to_string()
    }

    #[test]
    fn arrow_names_become_sql_names() {
        assert_eq!(
            sql_types("Cannot coerce arithmetic expression Utf8 + Int64 to valid types"),
            "Cannot coerce arithmetic expression VARCHAR + BIGINT to valid types"
        );
        assert_eq!(sql_types("got Decimal128(10, 2) and Timestamp(ns)"), "got DECIMAL(10,2) and TIMESTAMP");
        assert_eq!(sql_types("Int32Array and Utf8s"), "Int32Array and Utf8s");
    }

    #[test]
    fn internals_are_left_out() {
        let sum = "Internal error: Function 'sum' failed to match any signature, errors: Error during planning: Function 'sum' requires Decimal, \
                   but received String (DataType: Utf8)..\nThis issue was likely caused by a bug in DataFusion's code. Please help us to resolve \
                   this by filing a bug report in our issue tracker: https://github.com/apache/datafusion/issues. No function matches the given \
                   name and argument types 'sum(Utf8)'. You might need to add explicit type casts.";
        let out = said(sum, "SELECT sum(name) FROM t");
        assert!(out.starts_with("No function matches the given name and argument types 'sum(VARCHAR)'"), "{out}");
        let pivot = "Unsupported ast node Pivot { table: Table { name: ObjectName([Identifier(Ident { value: \"t\", quote_style: None, span: Span(Location(1,15)..Location(1,16)) })]) } } in create_relation";
        assert!(said(pivot, "").starts_with("PIVOT is not supported; aggregate with CASE"));
        let dot = "Dot access not supported for non-string expr: Identifier(Ident { value: \"x\", quote_style: None, span: Span(Location(1,27)..Location(1,28)) })";
        assert_eq!(said(dot, ""), "Dot access not supported for non-string expr");
    }

    #[test]
    fn inserts_name_the_table_and_both_counts() {
        let message = "Inconsistent data length across values list: got 2 values in row 0 but expected 5";
        assert_eq!(
            said(message, "INSERT INTO t VALUES (2, 'b')"),
            "table \"t\" has 5 columns but VALUES gives 2 values; give a value for every column, or name the columns you give values for (INSERT INTO t (a, b) VALUES ...)"
        );
        let message = "Inconsistent data length across values list: got 3 values in row 1 but expected 2";
        assert_eq!(
            said(message, "INSERT INTO t (id, name) VALUES (1, 'a'), (2, 'b', 3)"),
            "INSERT INTO t names 2 columns but row 2 of VALUES gives 3 values; give one value per named column"
        );
    }

    #[test]
    fn misspelled_types_and_window_functions() {
        assert_eq!(said("Unsupported SQL type INTEGR", ""), "type 'INTEGR' does not exist. Did you mean INTEGER?");
        // A real type this engine lacks is not a misspelling of whatever is nearest.
        assert!(said("Unsupported SQL type UUID", "").starts_with("type 'UUID' is not supported (types: "));
        assert!(said("Invalid function 'row_number'. Did you mean 'row_number'?", "").contains("needs an OVER clause"));
    }
}
