# A connection: its own transaction and registrations, over one open database.

setClass("swingdb_connection",
  contains = "DBIConnection",
  slots = list(
    ptr = "externalptr", dbdir = "character", read_only = "logical", bigint = "character", driver = "swingdb_driver",
    registered = "environment" # names of the data frames swingdb_register() made tables of
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
  if (is(name, "Id")) {
    parts <- name@name
    return(unname(parts[[length(parts)]]))
  }
  if (is(name, "SQL")) {
    return(dbUnquoteIdentifier(conn, name)[[1]]@name[["table"]])
  }
  if (!is.character(name) || length(name) != 1L || is.na(name)) {
    stop("a table name must be one string, an Id() or a quoted SQL identifier", call. = FALSE)
  }
  name
}

setMethod("dbListTables", "swingdb_connection", function(conn, ...) {
  union(.Call(C_swingdb_r_tables, conn@ptr), sort(ls(conn@registered, all.names = TRUE)))
})

setMethod("dbExistsTable", c("swingdb_connection", "character"), function(conn, name, ...) {
  if (!dbIsValid(conn)) stop("the connection is closed", call. = FALSE)
  table_name(conn, name) %in% dbListTables(conn)
})

setMethod("dbListFields", c("swingdb_connection", "character"), function(conn, name, ...) {
  sql <- paste0("SELECT * FROM ", dbQuoteIdentifier(conn, table_name(conn, name)), " LIMIT 0")
  names(dbGetQuery(conn, sql))
})

setMethod("dbReadTable", c("swingdb_connection", "character"), function(conn, name, ..., row.names = FALSE, check.names = TRUE) {
  out <- dbGetQuery(conn, paste0("SELECT * FROM ", dbQuoteIdentifier(conn, table_name(conn, name))))
  if (isTRUE(check.names)) names(out) <- make.names(names(out), unique = TRUE)
  sqlColumnToRownames(out, row.names)
})

setMethod("dbRemoveTable", c("swingdb_connection", "character"), function(conn, name, ..., temporary = FALSE, fail_if_missing = TRUE) {
  name <- table_name(conn, name)
  if (!isTRUE(fail_if_missing) && !dbExistsTable(conn, name)) {
    return(invisible(TRUE))
  }
  dbExecute(conn, paste0("DROP TABLE ", dbQuoteIdentifier(conn, name)))
  invisible(TRUE)
})

setMethod("dbBegin", "swingdb_connection", function(conn, ...) {
  if (.Call(C_swingdb_r_in_transaction, conn@ptr)) {
    stop("a transaction is open already on this connection; dbCommit() or dbRollback() it first", call. = FALSE)
  }
  dbExecute(conn, "BEGIN")
  invisible(TRUE)
})

setMethod("dbCommit", "swingdb_connection", function(conn, ...) {
  if (!.Call(C_swingdb_r_in_transaction, conn@ptr)) {
    stop("no transaction is open on this connection (dbBegin() opens one)", call. = FALSE)
  }
  dbExecute(conn, "COMMIT")
  invisible(TRUE)
})

setMethod("dbRollback", "swingdb_connection", function(conn, ...) {
  if (!.Call(C_swingdb_r_in_transaction, conn@ptr)) {
    stop("no transaction is open on this connection (dbBegin() opens one)", call. = FALSE)
  }
  dbExecute(conn, "ROLLBACK")
  invisible(TRUE)
})
