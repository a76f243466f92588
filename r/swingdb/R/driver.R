
setClass("swingdb_driver", contains = "DBIDriver")

# The swingdb driver: `dbConnect(swingdb::swingdb(), "sales.swingdb")`.
swingdb <- function() {
  new("swingdb_driver")
}

setMethod("show", "swingdb_driver", function(object) {
  cat("<swingdb_driver>\n")
  invisible(object)
})

setMethod("dbIsValid", "swingdb_driver", function(dbObj, ...) TRUE)

setMethod("dbGetInfo", "swingdb_driver", function(dbObj, ...) {
  version <- as.character(utils::packageVersion("swingdb"))
  list(driver.version = version, client.version = version, max.connections = Inf)
})

setMethod("dbDataType", "swingdb_driver", function(dbObj, obj, ...) {
  sql_type_of(obj)
})

setMethod(
  "dbConnect", "swingdb_driver",
  function(drv, dbdir = ":memory:", read_only = FALSE, bigint = c("integer64", "integer", "numeric", "character"), snapshot = NULL, ...) {
    bigint <- match.arg(bigint)
    if (!is.character(dbdir) || length(dbdir) != 1L || is.na(dbdir)) {
      fail("programming", "dbdir must be one path (or \":memory:\" for a private in-memory database)")
    }
    in_memory <- dbdir %in% c(":memory:", "")
    path <- if (in_memory) NULL else path.expand(dbdir)
    if (!is.null(snapshot)) {
      if (!is.character(snapshot) || length(snapshot) != 1L) fail("programming", "snapshot must be one name")
      path <- NULL
    }
    ptr <- .Call(C_swingdb_r_connect, path, isTRUE(read_only), snapshot)
    new("swingdb_connection",
      ptr = ptr, dbdir = if (is.null(snapshot)) dbdir else paste0("snapshot:", snapshot),
      read_only = isTRUE(read_only), bigint = bigint, driver = drv, state = connection_state()
    )
  }
)

connection_state <- function() {
  state <- new.env(parent = emptyenv())
  state$registered <- new.env(parent = emptyenv())
  state$active <- NULL
  state
}

# Attaches the shared snapshot `name` (made by another process's share):
# a private, copy-on-write database holding what the snapshot holds.
swingdb_attach <- function(name, bigint = c("integer64", "integer", "numeric", "character")) {
  dbConnect(swingdb(), snapshot = name, bigint = match.arg(bigint))
}

# Publishes what `conn` sees (its newest committed state, or inside a
# transaction what the transaction sees) as the snapshot `name`, for
# swingdb_attach() in this or any other process of this user.
swingdb_share <- function(conn, name, persist = FALSE, replace = FALSE) {
  if (!is.character(name) || length(name) != 1L || is.na(name)) fail("programming", "name must be one string")
  invisible(.Call(C_swingdb_r_share, conn@ptr, enc2utf8(name), isTRUE(persist), isTRUE(replace)))
}
