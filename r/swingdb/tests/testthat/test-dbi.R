test_that("a data frame with every kind of column goes in and comes back, NA everywhere", {
  con <- local_db()
  df <- data.frame(
    i = c(1L, NA, -3L),
    d = c(1.5, NA, NaN),
    s = c("a", NA, "\u00e9t\u00e9"),
    b = c(TRUE, NA, FALSE),
    day = as.Date(c("2024-01-31", NA, "1969-12-31")),
    stringsAsFactors = FALSE
  )
  df$ts <- as.POSIXct(c("2024-03-01 12:30:00", NA, "1999-12-31 23:59:59"), tz = "Europe/Paris")
  df$f <- factor(c("x", "y", NA), levels = c("y", "x"))
  DBI::dbWriteTable(con, "t", df)
  back <- DBI::dbReadTable(con, "t")
  expect_identical(back$i, df$i)
  expect_identical(back$d[1:2], df$d[1:2])
  expect_true(is.nan(back$d[3]))
  expect_identical(back$s, df$s)
  expect_identical(back$b, df$b)
  expect_identical(back$day, df$day)
  expect_equal(as.numeric(back$ts), as.numeric(df$ts))
  expect_identical(attr(back$ts, "tzone"), "Europe/Paris")
  expect_identical(back$f, as.character(df$f))
  types <- DBI::dbGetQuery(con, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't'")
  expect_match(types$data_type[types$column_name == "f"], "Dictionary|VARCHAR", ignore.case = TRUE)
})

test_that("append, overwrite, list, fields, exists, remove", {
  con <- local_db()
  DBI::dbWriteTable(con, "t", data.frame(a = 1:3, b = c("x", "y", "z")))
  expect_error(DBI::dbWriteTable(con, "t", data.frame(a = 4L, b = "w")), "exists already")
  DBI::dbWriteTable(con, "t", data.frame(a = 4L, b = "w"), append = TRUE)
  expect_identical(DBI::dbGetQuery(con, "SELECT count(*) AS n FROM t")$n, bit64::as.integer64(4))
  DBI::dbWriteTable(con, "t", data.frame(a = 9L, b = "q"), overwrite = TRUE)
  expect_identical(DBI::dbReadTable(con, "t")$a, 9L)
  expect_identical(DBI::dbListTables(con), "t")
  expect_identical(DBI::dbListFields(con, "t"), c("a", "b"))
  expect_true(DBI::dbExistsTable(con, "t"))
  expect_true(DBI::dbExistsTable(con, DBI::Id(table = "t")))
  DBI::dbRemoveTable(con, "t")
  expect_false(DBI::dbExistsTable(con, "t"))
  expect_error(DBI::dbListFields(con, "t"), class = "swingdb_programming_error")
})

test_that("placeholders ? and $1 bind by position, one run per row", {
  con <- local_db()
  DBI::dbExecute(con, "CREATE TABLE t (a INTEGER, b VARCHAR, c DATE)")
  n <- DBI::dbExecute(con, "INSERT INTO t VALUES (?, ?, ?)",
    params = list(1:3, c("x", NA, "z"), as.Date("2020-01-01") + 0:2)
  )
  expect_identical(n, 3)
  expect_identical(DBI::dbGetQuery(con, "SELECT b FROM t WHERE a = $1", params = list(3L))$b, "z")
  res <- DBI::dbSendQuery(con, "SELECT a FROM t WHERE a >= ? ORDER BY a")
  DBI::dbBind(res, list(c(3L, 2L)))
  expect_identical(DBI::dbFetch(res)$a, c(3L, 2L, 3L))
  DBI::dbClearResult(res)
  expect_error(DBI::dbGetQuery(con, "SELECT ?", params = list(a = 1)), "by position")
  expect_error(DBI::dbGetQuery(con, "SELECT ? + ?", params = list(1)), "takes 2", class = "swingdb_programming_error")
})

test_that("every error of the package is a swingdb condition, also for its own checks", {
  con <- local_db()
  DBI::dbWriteTable(con, "t", data.frame(a = 1L))
  expect_error(DBI::dbGetQuery(con, "SELECT ?", params = list(a = 1)), class = "swingdb_programming_error")
  expect_error(DBI::dbWriteTable(con, "t", data.frame(a = 2L)), class = "swingdb_programming_error")
  expect_error(DBI::dbWriteTable(con, "u", data.frame(a = I(list(1)))), class = "swingdb_programming_error")
  expect_error(DBI::dbAppendTable(con, "t", data.frame(zz = 1L)), "no column zz", class = "swingdb_programming_error")
})

test_that("a temporary table is the connection's own, shadows a stored one and is gone at disconnect", {
  con <- local_db()
  path <- DBI::dbGetInfo(con)$dbname
  DBI::dbWriteTable(con, "t", data.frame(a = 1L))
  DBI::dbWriteTable(con, "t", data.frame(b = c("x", "y")), temporary = TRUE)
  expect_identical(DBI::dbReadTable(con, "t")$b, c("x", "y"))
  expect_identical(DBI::dbGetQuery(con, "SELECT a FROM main.t")$a, 1L)
  expect_true("t" %in% DBI::dbListTables(con))
  other <- DBI::dbConnect(swingdb::swingdb(), path)
  expect_identical(names(DBI::dbReadTable(other, "t")), "a")
  DBI::dbDisconnect(other)
  # temporary = TRUE removes only a temporary table.
  DBI::dbRemoveTable(con, "t", temporary = TRUE)
  expect_error(DBI::dbRemoveTable(con, "t", temporary = TRUE), class = "swingdb_programming_error")
  expect_identical(DBI::dbReadTable(con, "t")$a, 1L)
  expect_equal(as.numeric(DBI::dbGetQuery(con, "INSERT INTO t VALUES (5) RETURNING a * 2 AS twice")$twice), 10)
})

test_that("text that is not UTF-8 is an error naming the parameter or column, never stored escaped", {
  con <- local_db()
  bad <- rawToChar(as.raw(c(0x61, 0xff, 0xfe, 0x62)))
  DBI::dbExecute(con, "CREATE TABLE s (v VARCHAR)")
  err <- tryCatch(DBI::dbExecute(con, "INSERT INTO s VALUES (?)", params = list(c("ok", bad))), error = identity)
  expect_s3_class(err, "swingdb_data_error")
  expect_match(conditionMessage(err), "parameter 1: value 2 is not UTF-8 text (bytes 61 ff fe 62)", fixed = TRUE)
  expect_error(DBI::dbWriteTable(con, "w", data.frame(v = bad)), "column v: value 1 is not UTF-8", class = "swingdb_data_error")
  expect_error(DBI::dbWriteTable(con, "w", data.frame(v = factor(bad))), "column v (its levels)", fixed = TRUE, class = "swingdb_data_error")
  expect_false(DBI::dbExistsTable(con, "w"))
  expect_equal(as.numeric(DBI::dbGetQuery(con, "SELECT count(*) AS n FROM s")$n), 0)
  # Latin-1 text marked as such is converted, not refused.
  latin <- rawToChar(as.raw(c(0x63, 0x61, 0x66, 0xe9)))
  Encoding(latin) <- "latin1"
  DBI::dbExecute(con, "INSERT INTO s VALUES (?)", params = list(latin))
  expect_identical(DBI::dbGetQuery(con, "SELECT v FROM s")$v, "caf\u00e9")
})

test_that("dbSendQuery, dbFetch(n) and dbClearResult walk a result in pieces", {
  con <- local_db()
  res <- DBI::dbSendQuery(con, "SELECT value AS v FROM range(100000) ORDER BY v")
  first <- DBI::dbFetch(res, 10)
  expect_identical(nrow(first), 10L)
  expect_false(DBI::dbHasCompleted(res))
  rest <- DBI::dbFetch(res)
  expect_identical(nrow(rest), 99990L)
  expect_equal(as.numeric(rest$v[1]), 10)
  expect_true(DBI::dbHasCompleted(res))
  expect_identical(DBI::dbGetRowCount(res), 100000)
  expect_identical(nrow(DBI::dbFetch(res)), 0L)
  DBI::dbClearResult(res)
  expect_warning(DBI::dbClearResult(res), "cleared already")
  expect_error(DBI::dbFetch(res), "cleared")
})

test_that("transactions commit, roll back, and dbWithTransaction rolls back on error", {
  con <- local_db()
  DBI::dbExecute(con, "CREATE TABLE t (a INTEGER)")
  DBI::dbBegin(con)
  expect_error(DBI::dbBegin(con), "open already")
  DBI::dbExecute(con, "INSERT INTO t VALUES (1)")
  DBI::dbRollback(con)
  expect_identical(nrow(DBI::dbReadTable(con, "t")), 0L)
  DBI::dbWithTransaction(con, DBI::dbExecute(con, "INSERT INTO t VALUES (2)"))
  expect_error(DBI::dbWithTransaction(con, {
    DBI::dbExecute(con, "INSERT INTO t VALUES (3)")
    stop("changed my mind")
  }), "changed my mind")
  expect_identical(DBI::dbReadTable(con, "t")$a, 2L)
  expect_error(DBI::dbCommit(con), "no transaction")
})

test_that("errors are R conditions of the engine's kinds with its messages", {
  con <- local_db()
  err <- tryCatch(DBI::dbGetQuery(con, "SELECT * FROM no_such_table"), error = identity)
  expect_s3_class(err, "swingdb_programming_error")
  expect_s3_class(err, "swingdb_error")
  expect_match(conditionMessage(err), "no_such_table")
  DBI::dbExecute(con, "CREATE TABLE k (id INTEGER PRIMARY KEY)")
  DBI::dbExecute(con, "INSERT INTO k VALUES (1)")
  expect_error(DBI::dbExecute(con, "INSERT INTO k VALUES (1)"), class = "swingdb_integrity_error")
  expect_error(DBI::dbGetQuery(con, "SELEC 1"), class = "swingdb_programming_error")
})

test_that("read_only refuses writes and reads what is there", {
  dir <- tempfile()
  path <- file.path(dir, "ro.swingdb")
  con <- DBI::dbConnect(swingdb::swingdb(), path)
  DBI::dbWriteTable(con, "t", data.frame(a = 1:2))
  DBI::dbDisconnect(con)
  ro <- DBI::dbConnect(swingdb::swingdb(), path, read_only = TRUE)
  on.exit({
    DBI::dbDisconnect(ro)
    unlink(dir, recursive = TRUE)
  })
  expect_identical(DBI::dbReadTable(ro, "t")$a, 1:2)
  expect_error(DBI::dbExecute(ro, "INSERT INTO t VALUES (3)"), class = "swingdb_error")
  expect_false(DBI::dbIsValid(con))
  expect_warning(DBI::dbDisconnect(con), "closed already")
  expect_error(DBI::dbGetQuery(con, "SELECT 1"), "closed")
})

test_that("64-bit integers arrive as integer64, or as doubles by option", {
  con <- local_db()
  big <- DBI::dbGetQuery(con, "SELECT 9007199254740993::BIGINT AS x, NULL::BIGINT AS y")
  expect_s3_class(big$x, "integer64")
  expect_identical(as.character(big$x), "9007199254740993")
  expect_true(bit64::is.na.integer64(big$y))
  con2 <- DBI::dbConnect(swingdb::swingdb(), bigint = "numeric")
  on.exit(DBI::dbDisconnect(con2))
  x <- DBI::dbGetQuery(con2, "SELECT 42::BIGINT AS x, NULL::BIGINT AS y")
  expect_identical(x$x, 42)
  expect_identical(x$y, NA_real_)
  DBI::dbWriteTable(con, "w", data.frame(v = bit64::as.integer64(c("9007199254740993", NA))))
  expect_identical(as.character(DBI::dbReadTable(con, "w")$v), c("9007199254740993", NA))
})

test_that("quoting and types", {
  con <- local_db()
  expect_identical(as.character(DBI::dbQuoteIdentifier(con, "a\"b")), "\"a\"\"b\"")
  expect_identical(as.character(DBI::dbQuoteString(con, "it's")), "'it''s'")
  expect_identical(DBI::dbDataType(con, 1L), "INTEGER")
  expect_identical(DBI::dbDataType(con, Sys.Date()), "DATE")
  expect_identical(DBI::dbDataType(swingdb::swingdb(), bit64::as.integer64(1)), "BIGINT")
  expect_identical(DBI::dbGetQuery(con, paste("SELECT", DBI::dbQuoteString(con, "it's"), "AS s"))$s, "it's")
  info <- DBI::dbGetInfo(con)
  expect_true(is.character(info$db.version))
})

test_that("Ctrl-C stops a running query, and the connection goes on", {
  con <- local_db()
  # SIGINT to this R process in a second, as Ctrl-C sends it, from a forked
  # child (system() would leave R's interrupt flag set by itself).
  me <- Sys.getpid()
  killer <- parallel::mcparallel({
    Sys.sleep(1)
    tools::pskill(me, tools::SIGINT)
  })
  on.exit(parallel::mccollect(killer))
  started <- Sys.time()
  got <- tryCatch(
    DBI::dbGetQuery(con, "SELECT count(*) AS n FROM range(100000000000) AS r WHERE r.value % 7 = 3"),
    interrupt = function(e) "interrupted"
  )
  expect_identical(got, "interrupted")
  expect_lt(as.numeric(Sys.time() - started, units = "secs"), 30)
  expect_silent(expect_identical(DBI::dbGetQuery(con, "SELECT CAST(1 AS INTEGER) AS x")$x, 1L))
})
