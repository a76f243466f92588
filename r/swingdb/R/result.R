# Results: a statement, its bound values, and the rows still to fetch.
#
# A statement with placeholders (`?`, `$1`) runs when values are bound
# (dbBind, or params = in dbSendQuery / dbGetQuery); one without runs at once.
# Values bound as vectors of n elements run the statement n times: a query's
# rows are those of every run, in order; a statement's count is their sum.

setClass("swingdb_result",
  contains = "DBIResult",
  slots = list(connection = "swingdb_connection", statement = "character", is_query = "logical", state = "environment")
)

# How many values the statement takes: its `?`s, or its highest `$n`, outside
# strings, quoted names and comments.
placeholder_count <- function(sql) {
  code <- gsub("'([^']|'')*'|\"([^\"]|\"\")*\"|--[^\n]*|/\\*([^*]|\\*+[^*/])*\\*+/", " ", sql, perl = TRUE)
  marks <- regmatches(code, gregexpr("\\?|\\$[0-9]+", code, perl = TRUE))[[1]]
  if (length(marks) == 0L) {
    return(0L)
  }
  numbered <- marks[marks != "?"]
  max(sum(marks == "?"), if (length(numbered)) max(as.integer(substring(numbered, 2))) else 0L)
}

new_result <- function(conn, statement, is_query, params) {
  if (!dbIsValid(conn)) fail("programming", "the connection is closed (dbDisconnect was called); open a new one with dbConnect()")
  if (!is.character(statement) || length(statement) != 1L || is.na(statement)) {
    fail("programming", "the statement must be one string")
  }
  state <- new.env(parent = emptyenv())
  state$ptr <- NULL
  state$valid <- TRUE
  state$needed <- placeholder_count(statement)
  state$bound <- NULL # the values, as prepared by bind_values()
  state$runs <- 0L # rows of bound values
  state$run <- 0L # the run being fetched (1-based)
  state$fetched <- 0
  state$affected <- 0
  state$columns <- NULL # names and kinds of the result's columns
  res <- new("swingdb_result", connection = conn, statement = statement, is_query = is_query, state = state)
  active <- conn@state$active
  if (!is.null(active) && active$valid) {
    warning("the connection's previous result was not cleared (dbClearResult); it is cleared now", call. = FALSE)
    clear_result(active)
  }
  # The result becomes the connection's open one only once it exists: a
  # statement that fails here leaves nothing open.
  ok <- FALSE
  on.exit(if (!ok) clear_result(state))
  if (!is.null(params)) {
    dbBind(res, params)
  } else if (state$needed == 0L) {
    state$runs <- 1L
    start_run(res, 1L)
  }
  ok <- TRUE
  conn@state$active <- state
  res
}

setMethod("dbSendQuery", c("swingdb_connection", "character"), function(conn, statement, params = NULL, ...) {
  new_result(conn, statement, TRUE, params)
})

setMethod("dbSendStatement", c("swingdb_connection", "character"), function(conn, statement, params = NULL, ...) {
  new_result(conn, statement, FALSE, params)
})

# Parameter kinds of the C side (swingdb_r.c, P_*).
bind_codes <- c(
  logical = 1L, integer = 2L, double = 3L, text = 4L, date = 5L,
  timestamp = 6L, blob = 7L, time = 8L, integer64 = 9L
)

# list(code, values, zone) of the bound parameter at `position`.
bind_kind <- function(x, position) {
  if (is.null(x) || (is.logical(x) && length(x) > 0L && all(is.na(x)))) {
    # NULL, or NA alone: an untyped NULL, which fits a column of any type.
    return(list(0L, x, NULL))
  }
  what <- paste("parameter", position)
  kind <- vector_kind(x, what)
  if (kind == "factor") {
    warning("factors are bound as their labels (text)", call. = FALSE)
    x <- as.character(x)
    kind <- "text"
  }
  layout <- c_layout(x, kind, what)
  # A timestamp without a zone is bound as one without (R's local time).
  list(bind_codes[[kind]], layout[[1]], if (kind == "timestamp") layout[[2]] %||% "" else NULL)
}

setMethod("dbBind", "swingdb_result", function(res, params, ...) {
  state <- check_open(res)
  if (state$needed == 0L) {
    fail("programming", "the statement has no placeholders (`?`, `$1`): there are no values to bind")
  }
  if (!is.list(params)) params <- as.list(params)
  if (!is.null(names(params)) && any(nzchar(names(params)))) {
    fail("programming", "swingdb binds values by position (`?`, `$1`); pass them unnamed")
  }
  if (length(params) != state$needed) {
    fail("programming", sprintf("the statement takes %d value(s), %d were bound", state$needed, length(params)))
  }
  lengths <- vapply(params, length, integer(1))
  if (length(unique(lengths)) > 1L) {
    fail("programming", "bound values must all have the same length (one per run of the statement)")
  }
  prepared <- Map(bind_kind, params, seq_along(params))
  state$bound <- list(
    kinds = vapply(prepared, `[[`, integer(1), 1L),
    values = lapply(prepared, `[[`, 2L),
    tzs = lapply(prepared, `[[`, 3L)
  )
  clear_run(state)
  state$runs <- if (length(params)) lengths[[1]] else 1L
  state$fetched <- 0
  state$affected <- 0
  state$run <- 0L
  if (res@is_query) {
    if (state$runs > 0L) start_run(res, 1L)
  } else {
    for (i in seq_len(state$runs)) start_run(res, i)
  }
  invisible(res)
})

clear_run <- function(state) {
  if (!is.null(state$ptr)) .Call(C_swingdb_r_result_clear, state$ptr)
  state$ptr <- NULL
}

# Runs the statement with row i of the bound values.
start_run <- function(res, i) {
  state <- res@state
  clear_run(state)
  bound <- state$bound %||% list(kinds = integer(), values = list(), tzs = list())
  state$ptr <- .Call(C_swingdb_r_execute, res@connection@ptr, utf8_text(res@statement, "the statement"), bound$kinds, bound$values, bound$tzs, i - 1)
  state$run <- i
  info <- .Call(C_swingdb_r_result_info, state$ptr)
  state$columns <- info
  if (info[[4]] >= 0) state$affected <- state$affected + info[[4]]
}

check_open <- function(res) {
  state <- res@state
  if (!state$valid) {
    why <- if (isTRUE(state$broken)) "its fetch stopped on an error or an interrupt" else "it was cleared (dbClearResult)"
    fail("programming", "the result is closed: ", why, "; send the statement again")
  }
  if (!dbIsValid(res@connection)) fail("programming", "the result's connection is closed")
  state
}

as_data_frame <- function(columns, names) {
  names(columns) <- names
  n <- if (length(columns)) length(columns[[1]]) else 0L
  structure(columns, class = "data.frame", row.names = .set_row_names(n))
}

# A data frame of no rows with the result's columns.
empty_frame <- function(state, bigint) {
  info <- state$columns
  if (is.null(info)) {
    return(data.frame())
  }
  cols <- lapply(info[[3]], empty_column, bigint = bigint)
  as_data_frame(cols, info[[1]])
}

empty_column <- function(kind, bigint) {
  switch(as.character(kind),
    "0" = logical(),
    "1" = numeric(),
    "2" = integer(),
    "3" = switch(bigint, integer64 = bit64::integer64(), integer = integer(), character = character(), numeric()),
    "4" = logical(),
    "5" = structure(numeric(), class = "Date"),
    "6" = structure(numeric(), class = c("POSIXct", "POSIXt"), tzone = "UTC"),
    "7" = hms::hms(numeric()),
    "8" = character(),
    "9" = blob::blob()
  )
}

setMethod("dbFetch", "swingdb_result", function(res, n = -1, ...) {
  state <- check_open(res)
  if (length(n) != 1L || is.na(n) || !is.numeric(n) || (n < 0 && n != -1) || (is.finite(n) && n != trunc(n))) {
    fail("programming", "n must be a whole number of rows, or -1 or Inf for all")
  }
  if (!res@is_query || (!is.null(state$columns) && (state$columns[[4]] >= 0 || length(state$columns[[1]]) == 0L))) {
    warning("dbFetch() of a statement that returns no rows; use dbExecute() or dbGetRowsAffected()", call. = FALSE)
    return(data.frame())
  }
  if (is.null(state$ptr)) {
    if (state$runs == 0L && !is.null(state$bound)) {
      return(empty_frame(state, res@connection@bigint))
    }
    fail("programming", "the statement has placeholders: bind their values with dbBind() first")
  }
  # A fetch that stops on an error or Ctrl-C leaves its statement's stream
  # broken: the result is let go (the connection's next statement then finds
  # no result left open), and clearing it later is not an error.
  fetched <- FALSE
  on.exit(if (!fetched) {
    clear_result(state)
    state$broken <- TRUE
  })
  bigint <- res@connection@bigint
  want <- if (n < 0 || is.infinite(n)) -1 else n
  parts <- list()
  got <- 0
  repeat {
    cols <- .Call(C_swingdb_r_fetch, state$ptr, if (want < 0) -1 else want - got, bigint %in% c("integer64", "character"))
    cols <- with_bigint(cols, state$columns[[3]], bigint)
    rows <- if (length(cols)) length(cols[[1]]) else 0
    if (rows > 0 || length(parts) == 0L) parts[[length(parts) + 1L]] <- cols
    got <- got + rows
    if (want >= 0 && got >= want) break
    if (!.Call(C_swingdb_r_result_done, state$ptr)) next
    if (state$run >= state$runs) break
    start_run(res, state$run + 1L)
  }
  state$fetched <- state$fetched + got
  fetched <- TRUE
  names <- state$columns[[1]]
  if (length(parts) == 1L) {
    return(as_data_frame(parts[[1]], names))
  }
  frames <- lapply(parts, as_data_frame, names = names)
  out <- do.call(rbind, frames)
  rownames(out) <- NULL
  out
})

setMethod("dbClearResult", "swingdb_result", function(res, ...) {
  state <- res@state
  if (!state$valid) {
    if (!isTRUE(state$broken)) warning("the result was cleared already", call. = FALSE)
    return(invisible(TRUE))
  }
  clear_result(state)
  if (identical(res@connection@state$active, state)) res@connection@state$active <- NULL
  invisible(TRUE)
})

# Frees a result's engine resources and marks it cleared.
clear_result <- function(state) {
  clear_run(state)
  state$valid <- FALSE
}

# 64-bit integer columns (kind 3) as the connection's bigint option asks:
# integer64 and numeric come so from the C side; integer and character are
# converted from them here (integer gives NA, with a warning, out of range).
with_bigint <- function(cols, kinds, bigint) {
  if (bigint %in% c("integer64", "numeric")) {
    return(cols)
  }
  for (i in which(kinds == 3L)) {
    # (DBI's specification: out-of-range values become NA without a warning.)
    cols[[i]] <- if (bigint == "integer") suppressWarnings(as.integer(cols[[i]])) else as.character(cols[[i]])
  }
  cols
}

setMethod("dbIsValid", "swingdb_result", function(dbObj, ...) {
  dbObj@state$valid && dbIsValid(dbObj@connection)
})

setMethod("dbHasCompleted", "swingdb_result", function(res, ...) {
  state <- check_open(res)
  if (is.null(state$ptr)) {
    # Not run yet (values to bind), or bound with zero rows.
    return(!is.null(state$bound) && state$runs == 0L)
  }
  if (!res@is_query || state$columns[[4]] >= 0 || length(state$columns[[1]]) == 0L) {
    return(TRUE)
  }
  .Call(C_swingdb_r_result_done, state$ptr) && state$run >= state$runs
})

setMethod("dbGetStatement", "swingdb_result", function(res, ...) {
  check_open(res)
  res@statement
})

setMethod("dbGetRowCount", "swingdb_result", function(res, ...) {
  state <- check_open(res)
  state$fetched
})

setMethod("dbGetRowsAffected", "swingdb_result", function(res, ...) {
  state <- check_open(res)
  if (is.null(state$bound) && state$needed > 0L) {
    return(NA_integer_) # values are still to be bound
  }
  state$affected
})

setMethod("dbColumnInfo", "swingdb_result", function(res, ...) {
  state <- check_open(res)
  info <- state$columns
  if (is.null(info)) {
    return(data.frame(name = character(), type = character(), .sql_type = character(), check.names = FALSE))
  }
  r_type <- vapply(info[[3]], function(k) class(empty_column(k, res@connection@bigint))[[1]], character(1))
  data.frame(name = info[[1]], type = r_type, .sql_type = info[[2]], stringsAsFactors = FALSE, check.names = FALSE)
})

setMethod("show", "swingdb_result", function(object) {
  cat("<swingdb_result>\n  ", object@statement, "\n", sep = "")
  invisible(object)
})
