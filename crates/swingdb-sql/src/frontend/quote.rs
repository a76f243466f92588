//! Names and strings written into SQL text that swingdb builds (exports,
//! rewritten statements): quoted so that any name or string reads back as
//! itself and nothing else.

/// `name` as a double-quoted identifier (quotes doubled).
pub fn identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `text` as a string literal (quotes doubled).
pub fn string(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
