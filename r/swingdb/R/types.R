# What kind of values an R vector holds, for the three places that sort them:
# SQL types (dbDataType), bound parameters (dbBind) and columns in
# (dbWriteTable, swingdb_register). Each maps the kind to its own codes.

# The kind of `x`: one of "factor", "integer64", "date", "timestamp", "time",
# "blob", "logical", "integer", "double", "text"; an error names any other class.
vector_kind <- function(x, what = "an R object") {
  if (is.factor(x)) return("factor")
  if (inherits(x, "integer64")) return("integer64")
  if (inherits(x, "Date")) return("date")
  if (inherits(x, "POSIXt")) return("timestamp")
  if (inherits(x, "difftime")) return("time")
  if (inherits(x, "blob") || is.list(x)) {
    if (!all(vapply(x, function(v) is.null(v) || is.raw(v), logical(1)))) {
      fail("programming", what, ": a list must hold raw vectors (blobs) or NULLs")
    }
    return("blob")
  }
  if (is.logical(x)) return("logical")
  if (is.integer(x)) return("integer")
  if (is.double(x)) return("double")
  if (is.character(x)) return("text")
  fail("programming", what, ": swingdb has no SQL type for an R object of class ", paste(class(x), collapse = "/"))
}

# The values of `x` (of `kind`) in the layout the C side reads, and its zone;
# `what` names `x` in errors.
c_layout <- function(x, kind, what) {
  switch(kind,
    date = list(as.double(unclass(x)), NULL),
    timestamp = {
      x <- as.POSIXct(x)
      tz <- attr(x, "tzone") %||% ""
      list(as.double(unclass(x)), if (length(tz) && nzchar(tz[[1]])) tz[[1]] else NULL)
    },
    time = list(as.double(x, units = "secs"), NULL),
    blob = list(unclass(x), NULL),
    text = list(utf8_text(x, what), NULL),
    factor = {
      utf8_text(levels(x), paste(what, "(its levels)"))
      list(x, NULL)
    },
    list(x, NULL)
  )
}

`%||%` <- function(a, b) if (is.null(a)) b else a

sql_types <- c(
  factor = "VARCHAR", integer64 = "BIGINT", date = "DATE",
  # An instant, to the microsecond (R's precision), over years 1 to 9999.
  timestamp = "TIMESTAMP(6) WITH TIME ZONE",
  time = "TIME", blob = "BLOB", logical = "BOOLEAN", integer = "INTEGER", double = "DOUBLE", text = "VARCHAR"
)

# The SQL type swingdb stores an R vector as (each column's, for a data frame).
sql_type_of <- function(obj) {
  if (is.data.frame(obj)) {
    return(vapply(obj, sql_type_of, character(1)))
  }
  sql_types[[vector_kind(obj)]]
}
