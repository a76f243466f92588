//! The one error type of the core. Every failure carries an [`ErrorKind`] that the
//! Python face maps onto the DB-API exception hierarchy, and a message that names
//! the object involved and, where there is one, the fix.

use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;
use std::fmt;

/// What kind of failure happened; decides the Python exception class.
///
/// ```
/// use swingdb_storage::{DbDir, ErrorKind};
/// let tmp = std::env::temp_dir().join(format!("swingdb-kind-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&tmp)?;
/// std::fs::write(tmp.join("notes.txt"), "hello")?;
/// let err = DbDir::open(&tmp, true, false).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Operational);
/// assert!(err.message().contains("not a swingdb database"));
/// # std::fs::remove_dir_all(&tmp)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad SQL or API misuse: syntax error, unknown table or column, wrong parameter count.
    Programming,
    /// A value does not fit: wrong type on insert, cast failure, division by zero.
    Data,
    /// A constraint was violated (NULL into NOT NULL).
    Integrity,
    /// The environment failed: I/O error, permission, database is read-only.
    Operational,
    /// Another writer committed a conflicting change first; retry the transaction.
    Conflict,
    /// A stored file is damaged (checksum mismatch, truncated segment, bad manifest).
    Corruption,
    /// The statement is valid SQL but swingdb does not support it.
    NotSupported,
    /// A bug in swingdb; please report it.
    Internal,
    /// The statement was cancelled (Ctrl-C, `interrupt()`); nothing it did was kept.
    Interrupted,
}

/// The error type of the swingdb core.
///
/// ```
/// use datafusion::error::DataFusionError;
/// use swingdb_storage::{Error, ErrorKind};
/// // Errors cross DataFusion's operators and come back with their kind.
/// let original = Error::new(ErrorKind::Integrity, "NULL in column 'a' of table 't'");
/// let back = Error::from(DataFusionError::from(original));
/// assert_eq!(back.kind(), ErrorKind::Integrity);
/// ```
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// Where in the statement's text the mistake is, if known.
    span: Option<SqlSpan>,
}

/// A stretch of SQL text: 1-based line and columns, `end` inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqlSpan {
    /// Line of the first character.
    pub line: u64,
    /// Column of the first character.
    pub column: u64,
    /// Column of the last character, if on the same line.
    pub end_column: Option<u64>,
}

/// Result alias used throughout the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with a human-readable `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), span: None }
    }
    /// Where in the SQL text the mistake is, if known.
    pub fn span(&self) -> Option<SqlSpan> {
        self.span
    }
    /// A syntax error: the parser's or tokenizer's `message`, its
    /// "at Line: L, Column: C" turned into this error's span.
    pub fn syntax(message: &str) -> Self {
        let message = message.replace("TokenizerError(\"", "").replace("ParserError(\"", "").replace("\")", "");
        let (message, span) = strip_location(&message);
        Self { kind: ErrorKind::Programming, message: format!("SQL syntax error: {message}"), span }
    }
    /// This error with its message replaced.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }
    /// This error, located at `span` of the statement's text.
    pub fn with_span(mut self, span: SqlSpan) -> Self {
        self.span = Some(span);
        self
    }
    /// This error with another kind (a mistake DataFusion reported as its own).
    pub fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }
    /// Shorthand for [`ErrorKind::Programming`].
    pub fn programming(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Programming, message)
    }
    /// Shorthand for [`ErrorKind::Data`].
    pub fn data(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Data, message)
    }
    /// Shorthand for [`ErrorKind::Operational`].
    pub fn operational(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Operational, message)
    }
    /// Shorthand for [`ErrorKind::Corruption`].
    pub fn corruption(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Corruption, message)
    }
    /// Shorthand for [`ErrorKind::Internal`].
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }
    /// An I/O error, with what was being done to which path.
    pub fn io(context: impl fmt::Display, err: std::io::Error) -> Self {
        Self::operational(format!("{context}: {err}"))
    }
    /// The kind of this error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

fn arrow_kind(err: &ArrowError) -> ErrorKind {
    match err {
        ArrowError::ExternalError(e) => match e.downcast_ref::<Error>() {
            Some(inner) => inner.kind,
            None => ErrorKind::Data,
        },
        ArrowError::IoError(..) => ErrorKind::Operational,
        ArrowError::NotYetImplemented(_) => ErrorKind::NotSupported,
        ArrowError::IpcError(_) => ErrorKind::Corruption,
        ArrowError::MemoryError(_) => ErrorKind::Operational,
        _ => ErrorKind::Data,
    }
}

fn datafusion_kind(err: &DataFusionError) -> ErrorKind {
    match err {
        DataFusionError::SQL(..) | DataFusionError::Plan(_) | DataFusionError::SchemaError(..) => {
            ErrorKind::Programming
        }
        DataFusionError::ArrowError(e, _) => arrow_kind(e),
        DataFusionError::ParquetError(_) | DataFusionError::ObjectStore(_) => ErrorKind::Operational,
        DataFusionError::IoError(_) | DataFusionError::ResourcesExhausted(_) => ErrorKind::Operational,
        DataFusionError::NotImplemented(_) => ErrorKind::NotSupported,
        // A SET of an unknown or malformed setting is the user's mistake.
        DataFusionError::Configuration(_) => ErrorKind::Programming,
        DataFusionError::Internal(_) => ErrorKind::Internal,
        DataFusionError::Context(_, inner) => datafusion_kind(inner),
        DataFusionError::Diagnostic(_, inner) => datafusion_kind(inner),
        DataFusionError::Shared(inner) => datafusion_kind(inner),
        DataFusionError::External(e) => external_kind(e.as_ref()),
        DataFusionError::Collection(errs) => errs.first().map(datafusion_kind).unwrap_or(ErrorKind::Internal),
        // Raised while running, by a value the statement met (a text that is
        // not a number, a pattern that does not compile, a date out of range):
        // PostgreSQL's class 22, "data exception". Mistakes of the statement
        // itself that only show while running are raised as our own errors,
        // with their kind.
        DataFusionError::Execution(_) => ErrorKind::Data,
        _ => ErrorKind::Internal,
    }
}

/// The kind of an error DataFusion carries from elsewhere: ours, its own,
/// Arrow's, a regular expression that does not parse (a value of the
/// statement), else the environment's (I/O, object stores).
fn external_kind(err: &(dyn std::error::Error + Send + Sync + 'static)) -> ErrorKind {
    if let Some(inner) = err.downcast_ref::<Error>() {
        inner.kind
    } else if let Some(inner) = err.downcast_ref::<DataFusionError>() {
        datafusion_kind(inner)
    } else if let Some(inner) = err.downcast_ref::<ArrowError>() {
        arrow_kind(inner)
    } else if err.is::<regex_syntax::Error>() {
        ErrorKind::Data
    } else {
        ErrorKind::Operational
    }
}

/// Strips DataFusion's layered prefixes ("Error during planning: ...") down to the
/// root message, which is the part that names the table or column.
fn datafusion_message(err: &DataFusionError) -> String {
    match err {
        DataFusionError::External(e) => match e.downcast_ref::<Error>() {
            Some(inner) => inner.message.clone(),
            None => e.to_string(),
        },
        // Constant folding evaluates casts and arithmetic while planning; which
        // optimizer rule did it is noise to the person who wrote the SQL.
        DataFusionError::Context(ctx, inner) if ctx.starts_with("Optimizer rule") => datafusion_message(inner),
        DataFusionError::Context(ctx, inner) => format!("{}: {}", ctx, datafusion_message(inner)),
        DataFusionError::Diagnostic(_, inner) => datafusion_message(inner),
        DataFusionError::Shared(inner) => datafusion_message(inner),
        DataFusionError::ArrowError(e, _) => match e.as_ref() {
            ArrowError::ExternalError(ext) => match ext.downcast_ref::<Error>() {
                Some(inner) => inner.message.clone(),
                None => ext.to_string(),
            },
            other => arrow_message(other),
        },
        DataFusionError::SQL(e, _) => format!("SQL syntax error: {e}"),
        DataFusionError::Plan(m) | DataFusionError::Execution(m) | DataFusionError::NotImplemented(m) => m.clone(),
        DataFusionError::Configuration(m) => format!("invalid setting: {m}"),
        DataFusionError::SchemaError(e, _) => e.to_string(),
        other => other.strip_backtrace(),
    }
}

/// The span of the first diagnostic DataFusion attached to `err`.
fn diagnostic_span(err: &DataFusionError) -> Option<SqlSpan> {
    match err {
        DataFusionError::Diagnostic(d, inner) => d
            .span
            .filter(|s| s.start.line > 0)
            .map(|s| SqlSpan {
                line: s.start.line,
                column: s.start.column,
                end_column: (s.end.line == s.start.line && s.end.column >= s.start.column)
                    .then_some(s.end.column.saturating_sub(1).max(s.start.column)),
            })
            .or_else(|| diagnostic_span(inner)),
        DataFusionError::Context(_, inner) => diagnostic_span(inner),
        DataFusionError::Shared(inner) => diagnostic_span(inner),
        DataFusionError::Collection(all) => all.iter().find_map(diagnostic_span),
        _ => None,
    }
}

/// The parser's and tokenizer's "... at Line: 1, Column: 8" taken off a
/// message and turned into a span (shown as a caret instead).
pub fn strip_location(message: &str) -> (String, Option<SqlSpan>) {
    let Some(at) = message.rfind(" at Line: ") else { return (message.to_string(), None) };
    let rest = &message[at + " at Line: ".len()..];
    let Some((line, rest)) = rest.split_once(", Column: ") else { return (message.to_string(), None) };
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let (Ok(line), Ok(column)) = (line.parse::<u64>(), digits.parse::<u64>()) else {
        return (message.to_string(), None);
    };
    let tail = &rest[digits.len()..];
    (format!("{}{}", &message[..at], tail), Some(SqlSpan { line, column, end_column: None }))
}

fn arrow_message(err: &ArrowError) -> String {
    match err {
        ArrowError::CastError(m) => format!("Conversion error: {m}"),
        ArrowError::ParseError(m) => format!("Parse error: {m}"),
        ArrowError::DivideByZero => "Division by zero".to_string(),
        other => other.to_string(),
    }
}

impl From<DataFusionError> for Error {
    fn from(err: DataFusionError) -> Self {
        let err = match err {
            DataFusionError::External(e) => match e.downcast::<Error>() {
                Ok(inner) => return *inner,
                Err(e) => DataFusionError::External(e),
            },
            other => other,
        };
        // Tables live in one schema: name them as the user wrote them.
        let message = datafusion_message(&err).replace("'swingdb.main.", "'");
        let (message, parsed_at) = strip_location(&message);
        Self { kind: datafusion_kind(&err), message, span: diagnostic_span(&err).or(parsed_at) }
    }
}

impl From<ArrowError> for Error {
    fn from(err: ArrowError) -> Self {
        let err = match err {
            ArrowError::ExternalError(e) => match e.downcast::<Error>() {
                Ok(inner) => return *inner,
                Err(e) => ArrowError::ExternalError(e),
            },
            other => other,
        };
        Self::new(arrow_kind(&err), arrow_message(&err))
    }
}

impl From<Error> for DataFusionError {
    fn from(err: Error) -> Self {
        DataFusionError::External(Box::new(err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_error_survives_a_trip_through_datafusion() {
        let original = Error::new(ErrorKind::Integrity, "NULL in column 'a' of table 't'");
        let wrapped: DataFusionError = DataFusionError::Context("inserting".into(), Box::new(original.clone().into()));
        let back = Error::from(wrapped);
        assert_eq!(back.kind(), ErrorKind::Integrity);
        assert!(back.message().contains("column 'a'"), "{}", back.message());
    }

    #[test]
    fn bad_settings_are_programming_errors() {
        let e = Error::from(DataFusionError::Configuration("Config value \"u\" not found on ExecutionOptions".into()));
        assert_eq!(e.kind(), ErrorKind::Programming);
        assert!(e.message().starts_with("invalid setting"), "{}", e.message());
    }

    #[test]
    fn plan_errors_are_programming_errors() {
        let e = Error::from(DataFusionError::Plan("table 'x' not found".into()));
        assert_eq!(e.kind(), ErrorKind::Programming);
        assert_eq!(e.message(), "table 'x' not found");
    }
}
