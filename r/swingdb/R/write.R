# Data frames in: stored as tables (dbWriteTable, dbAppendTable) or
# registered in place (swingdb_register). Doubles, integers and integer64
# columns are lent to the engine as they are (no copy; R may not change them
# in place while the engine holds them, so a change in R makes a new vector);
# other columns are converted: factors to dictionary-encoded text, Dates to
# dates, POSIXct to timestamps in their zone, logicals to booleans, NA to NULL.

# Input kinds of the C interface (swingdb.h, swingdb_input_kind).
input_codes <- c(
  double = 1L, integer = 2L, logical = 3L, date = 4L, timestamp = 5L, text = 6L,
  factor = 7L, integer64 = 8L, blob = 9L, time = 10L
)

# list(code, values, zone) of one column in.
input_column <- function(x, name) {
  kind <- vector_kind(x, paste("column", name))
  layout <- c_layout(x, kind, paste("column", name))
  # A timestamp without a zone is stored as UTC instants.
  list(input_codes[[kind]], layout[[1]], if (kind == "timestamp") layout[[2]] %||% "UTC" else NULL)
}

store <- function(conn, name, value, mode) {
  if (!dbIsValid(conn)) fail("programming", "the connection is closed")
  value <- as.data.frame(value, stringsAsFactors = FALSE)
  if (ncol(value) == 0L) fail("programming", "table ", name, ": a data frame without columns cannot be stored")
  cols <- Map(input_column, value, names(value))
  .Call(
    C_swingdb_r_store, conn@ptr, utf8_text(name, "the table name"), lapply(cols, `[[`, 2L), utf8_text(names(value), "the column names"),
    vapply(cols, `[[`, integer(1), 1L), lapply(cols, `[[`, 3L), mode
  )
}

setMethod("dbWriteTable", c("swingdb_connection", "character", "data.frame"), function(conn, name, value, ..., row.names = FALSE, overwrite = FALSE, append = FALSE, field.types = NULL, temporary = FALSE) {
  if (isTRUE(overwrite) && isTRUE(append)) fail("programming", "overwrite and append cannot both be TRUE")
  if (!is.null(field.types) && isTRUE(append)) fail("programming", "field.types cannot be used with append = TRUE")
  if (!is.null(field.types) && (!is.character(field.types) || is.null(names(field.types)) || anyNA(field.types) ||
    anyDuplicated(names(field.types)) || !all(names(field.types) %in% names(value)))) {
    fail("programming", "field.types must be a character vector of SQL types named by columns of the data frame")
  }
  check_row_names(row.names)
  for (flag in list(overwrite, append, temporary)) {
    if (!is.logical(flag) || length(flag) != 1L || is.na(flag)) fail("programming", "overwrite, append and temporary must be TRUE or FALSE")
  }
  name <- table_name(conn, name)
  value <- sqlRownamesToColumn(value, row.names)
  # A temporary table may shadow a stored one: only a temporary one is in its way.
  exists <- if (isTRUE(temporary)) {
    name %in% dbGetQuery(conn, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'temp'")$table_name
  } else {
    dbExistsTable(conn, name)
  }
  if (exists && !overwrite && !append) {
    fail("programming", "table ", name, " exists already; use overwrite = TRUE to replace it or append = TRUE to add rows")
  }
  in_transaction <- .Call(C_swingdb_r_in_transaction, conn@ptr)
  if (!in_transaction) dbExecute(conn, "BEGIN")
  ok <- FALSE
  on.exit(if (!in_transaction && !ok) try(dbExecute(conn, "ROLLBACK"), silent = TRUE))
  if (exists && overwrite) dbRemoveTable(conn, name, temporary = isTRUE(temporary))
  if (exists && append) {
    append_rows(conn, name, value)
  } else if (isTRUE(temporary) || !is.null(field.types)) {
    # A temporary table (private to this connection, gone when it closes) is
    # made by SQL, then filled.
    types <- sql_type_of(value)
    types[names(field.types)] <- field.types
    dbCreateTable(conn, name, types, temporary = isTRUE(temporary))
    if (nrow(value) > 0L) store(conn, name, value, 1L)
  } else {
    store(conn, name, value, 0L)
  }
  if (!in_transaction) dbExecute(conn, "COMMIT")
  ok <- TRUE
  invisible(TRUE)
})

setMethod("dbAppendTable", "swingdb_connection", function(conn, name, value, ..., row.names = NULL) {
  if (!is.null(row.names)) fail("programming", "dbAppendTable() takes no row.names")
  if (!is.data.frame(value)) fail("programming", "dbAppendTable() takes a data frame")
  if (any(vapply(value, is.factor, logical(1)))) {
    warning("factor columns are appended as their labels (text)", call. = FALSE)
  }
  invisible(append_rows(conn, table_name(conn, name), value))
})

# Adds the rows of data frame `value` to table `name`, matching columns by
# name (those it lacks become NULL); returns the number of rows.
append_rows <- function(conn, name, value) {
  fields <- dbListFields(conn, name)
  unknown <- setdiff(names(value), fields)
  if (length(unknown)) {
    fail("programming", "table ", name, " has no column ", paste(unknown, collapse = ", "), " (its columns: ", paste(fields, collapse = ", "), ")")
  }
  if (nrow(value) == 0L) {
    return(0L)
  }
  if (identical(names(value), fields)) {
    return(as.integer(store(conn, name, value, 1L)))
  }
  # Some columns, or another order: the rows go in through SQL, from the
  # data frame registered in place under a name no one else uses.
  staging <- paste0("swingdb_append_", paste(sample(c(letters, 0:9), 16, replace = TRUE), collapse = ""))
  store(conn, staging, value, 2L)
  on.exit(.Call(C_swingdb_r_unregister, conn@ptr, staging))
  cols <- paste(dbQuoteIdentifier(conn, names(value)), collapse = ", ")
  as.integer(dbExecute(conn, paste0(
    "INSERT INTO ", dbQuoteIdentifier(conn, name), " (", cols, ") SELECT ", cols, " FROM ", dbQuoteIdentifier(conn, staging)
  )))
}

# Makes data frame `df` queryable as table `name` on this connection, in
# place: its numeric, integer and integer64 columns are read where they are.
swingdb_register <- function(conn, name, df) {
  store(conn, name, df, 2L)
  assign(name, TRUE, envir = conn@state$registered)
  invisible(TRUE)
}

# Removes a registration made by swingdb_register().
swingdb_unregister <- function(conn, name) {
  if (exists(name, envir = conn@state$registered, inherits = FALSE)) rm(list = name, envir = conn@state$registered)
  invisible(.Call(C_swingdb_r_unregister, conn@ptr, enc2utf8(name)))
}
