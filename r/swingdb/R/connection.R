# A connection: its own transaction and registrations, over one open database.

setClass("swingdb_connection",
  contains = "DBIConnection",
  slots = list(
    ptr = "externalptr", dbdir = "character", read_only = "logical", bigint = "character", driver = "swingdb_driver",
    # `registered`: an environment of the names swingdb_register() made tables
    # of; `active`: the state of the result not yet cleared (DBI allows one).
    state = "environment"
  )
)

setMethod("show", "swingdb_connection", function(object) {
  state <- if (dbIsValid(object)) object@dbdir else "DISCONNECTED"
  cat("<swingdb_connection> ", state, if (object@read_only) " (read-only)", "\n", sep = "")
  invisible(object)
})

setMethod("dbIsValid", "swingdb_connection", function(dbObj, ...) {
  .Call(C_swingdb_r_is_valid, dbObj@ptr)
})

setMethod("dbDisconnect", "swingdb_connection", function(conn, ...) {
  if (!dbIsValid(conn)) {
    warning("the connection is closed already", call. = FALSE)
    return(invisible(FALSE))
  }
  if (!is.null(conn@state$active) && conn@state$active$valid) {
    warning("the connection had a result that was not cleared (dbClearResult); it is cleared now", call. = FALSE)
    clear_result(conn@state$active)
  }
  .Call(C_swingdb_r_disconnect, conn@ptr)
  invisible(TRUE)
})

setMethod("dbGetInfo", "swingdb_connection", function(dbObj, ...) {
  info <- .Call(C_swingdb_r_database_info, dbObj@ptr)
  list(
    dbname = if (is.na(info[[1]])) ":memory:" else info[[1]],
    db.version = format(info[[2]], scientific = FALSE),
    username = NA_character_, host = NA_character_, port = NA_character_
  )
})

setMethod("dbDataType", "swingdb_connection", function(dbObj, obj, ...) {
  sql_type_of(obj)
})

# A table name as the engine takes it (never parsed as SQL): a character
# name as it is, an Id's table part, or a quoted SQL identifier unquoted.
# (The table methods are defined for character names; DBI's own methods for
# an Id quote it and call them with the SQL, which is a character.)
table_name <- function(conn, name) {
  if (is(name, "SQL")) {
    name <- dbUnquoteIdentifier(conn, name)[[1]]
  }
  if (is(name, "Id")) {
    parts <- name@name
    schema <- parts[names(parts) %in% c("catalog", "schema")]
    if (length(schema) && !all(schema == "main")) {
      fail("programming", "table ", paste(parts, collapse = "."), ": only tables of the database itself (schema main) are reached by name; ",
        "query an attached database's tables in SQL (alias.table)")
    }
    return(unname(parts[["table"]]))
  }
  if (!is.character(name) || length(name) != 1L || is.na(name)) {
    fail("programming", "a table name must be one string, an Id() or a quoted SQL identifier")
  }
  name
}

# Values as SQL literals of their types (DBI's default writes logicals as
# 1/0 and timestamps as digits, which swingdb, like PostgreSQL, does not
# compare with booleans and timestamps).
setMethod("dbQuoteLiteral", "swingdb_connection", function(conn, x, ...) {
  if (is(x, "SQL")) {
    return(x)
  }
  literal <- function(text, type) ifelse(is.na(text), "NULL", paste0("CAST(", dbQuoteString(conn, text), " AS ", type, ")"))
  out <- switch(vector_kind(x, "an SQL literal"),
    factor = ,
    text = as.character(dbQuoteString(conn, as.character(x))),
    integer64 = ifelse(is.na(x), "NULL", as.character(x)),
    date = literal(format(x, "%Y-%m-%d"), "DATE"),
    timestamp = literal(format(as.POSIXct(x), "%Y-%m-%d %H:%M:%OS6", tz = "UTC"), "TIMESTAMP(6) WITH TIME ZONE"),
    time = {
      secs <- as.double(x, units = "secs")
      literal(ifelse(is.na(secs), NA, sprintf("%02d:%02d:%09.6f", secs %/% 3600, (secs %% 3600) %/% 60, secs %% 60)), "TIME")
    },
    blob = vapply(x, function(v) if (is.null(v)) "NULL" else paste0("X'", paste(format(v), collapse = ""), "'"), character(1)),
    logical = ifelse(is.na(x), "NULL", ifelse(x, "TRUE", "FALSE")),
    integer = ,
    double = {
      special <- ifelse(is.nan(x), "NaN", ifelse(x > 0, "Infinity", "-Infinity"))
      ifelse(is.na(x) & !is.nan(x), "NULL", ifelse(is.infinite(x) | is.nan(x), paste0("CAST('", special, "' AS DOUBLE)"),
        format(x, digits = 17, trim = TRUE, scientific = FALSE)))
    }
  )
  SQL(unname(out), names = names(x))
})

# DBI's row.names argument: NULL, TRUE, FALSE, NA or one column name.
check_row_names <- function(row.names) {
  ok <- is.null(row.names) || (length(row.names) == 1L && (is.logical(row.names) || (is.character(row.names) && !is.na(row.names))))
  if (!ok) fail("programming", "row.names must be NULL, TRUE, FALSE, NA or one column name")
}

setMethod("dbListTables", "swingdb_connection", function(conn, ...) {
  union(.Call(C_swingdb_r_tables, conn@ptr), sort(ls(conn@state$registered, all.names = TRUE)))
})

# The tables (and views) under the one prefix, the database's schema main.
setMethod("dbListObjects", "swingdb_connection", function(conn, prefix = NULL, ...) {
  tables <- dbListTables(conn)
  if (is.null(prefix)) {
    ids <- c(lapply(tables, function(t) Id(table = t)), list(Id(schema = "main")))
    is_prefix <- c(rep(FALSE, length(tables)), TRUE)
  } else {
    parts <- prefix@name
    in_main <- identical(unname(parts[names(parts) == "schema"]), "main") && !any(names(parts) == "table")
    ids <- if (in_main) lapply(tables, function(t) Id(schema = "main", table = t)) else list()
    is_prefix <- rep(FALSE, length(ids))
  }
  data.frame(table = I(ids), is_prefix = is_prefix, stringsAsFactors = FALSE)
})

setMethod("dbExistsTable", c("swingdb_connection", "character"), function(conn, name, ...) {
  if (!dbIsValid(conn)) fail("programming", "the connection is closed")
  table_name(conn, name) %in% dbListTables(conn)
})

setMethod("dbListFields", c("swingdb_connection", "character"), function(conn, name, ...) {
  sql <- paste0("SELECT * FROM ", dbQuoteIdentifier(conn, table_name(conn, name)), " LIMIT 0")
  names(dbGetQuery(conn, sql))
})

setMethod("dbReadTable", c("swingdb_connection", "character"), function(conn, name, ..., row.names = FALSE, check.names = TRUE) {
  check_row_names(row.names)
  if (!is.logical(check.names) || length(check.names) != 1L || is.na(check.names)) {
    fail("programming", "check.names must be TRUE or FALSE")
  }
  out <- dbGetQuery(conn, paste0("SELECT * FROM ", dbQuoteIdentifier(conn, table_name(conn, name))))
  if (isTRUE(check.names)) names(out) <- make.names(names(out), unique = TRUE)
  sqlColumnToRownames(out, row.names)
})

setMethod("dbRemoveTable", c("swingdb_connection", "character"), function(conn, name, ..., temporary = FALSE, fail_if_missing = TRUE) {
  name <- table_name(conn, name)
  if (!isTRUE(fail_if_missing) && !dbExistsTable(conn, name)) {
    return(invisible(TRUE))
  }
  # temporary = TRUE removes a temporary table only (DBI's rule): schema temp.
  target <- dbQuoteIdentifier(conn, name)
  if (isTRUE(temporary)) target <- paste0("temp.", target)
  dbExecute(conn, paste0("DROP TABLE ", target))
  invisible(TRUE)
})

setMethod("dbBegin", "swingdb_connection", function(conn, ...) {
  if (.Call(C_swingdb_r_in_transaction, conn@ptr)) {
    fail("programming", "a transaction is open already on this connection; dbCommit() or dbRollback() it first")
  }
  dbExecute(conn, "BEGIN")
  invisible(TRUE)
})

setMethod("dbCommit", "swingdb_connection", function(conn, ...) {
  if (!.Call(C_swingdb_r_in_transaction, conn@ptr)) {
    fail("programming", "no transaction is open on this connection (dbBegin() opens one)")
  }
  dbExecute(conn, "COMMIT")
  invisible(TRUE)
})

setMethod("dbRollback", "swingdb_connection", function(conn, ...) {
  if (!.Call(C_swingdb_r_in_transaction, conn@ptr)) {
    fail("programming", "no transaction is open on this connection (dbBegin() opens one)")
  }
  dbExecute(conn, "ROLLBACK")
  invisible(TRUE)
})
