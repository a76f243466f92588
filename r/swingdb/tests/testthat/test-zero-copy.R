# Results read the engine's buffers in place, and R never writes into them.

# The database's files and their checksums.
# The database's segment files (its tables' data) and their checksums.
checksums <- function(dir) {
  tools::md5sum(sort(list.files(file.path(dir, "segments"), full.names = TRUE)))
}

stored_db <- function(env = parent.frame()) {
  con <- local_db(env = env)
  DBI::dbExecute(con, "CREATE TABLE t AS SELECT CAST(value AS DOUBLE) * 0.5 AS d, CAST(value AS INTEGER) AS i, value AS b FROM range(100000)")
  con
}

test_that("numeric, integer and integer64 columns of a stored table are the mapped segment itself", {
  con <- stored_db()
  dir <- dirname(DBI::dbGetInfo(con)$dbname)
  out <- DBI::dbGetQuery(con, "SELECT d, i, b FROM t")
  for (name in c("d", "i", "b")) {
    info <- vector_info(out[[name]])
    expect_identical(info$altrep, "swingdb", info = name)
    expect_identical(info$state, "in place", info = name)
    file <- mapped_file_of(info$address)
    expect_true(startsWith(file, normalizePath(DBI::dbGetInfo(con)$dbname)), info = paste(name, file))
  }
  # Reading through R's region and element interfaces (sum, mean, max,
  # head) reads the mapping and copies nothing.
  expect_identical(sum(out$i), sum(as.numeric(0:99999)))
  expect_equal(mean(out$d), 24999.75)
  expect_identical(max(out$d), 49999.5)
  expect_identical(length(head(out$i, 3)), 3L)
  for (name in c("d", "i", "b")) expect_identical(vector_info(out[[name]])$state, "in place", info = name)
  expect_identical(as.character(max(out$b)), "99999")
  # Base R code that asks for a writable pointer even to read (sort, x > 5)
  # gets a private copy once; the answers are the same.
  expect_identical(sort(out$i), 0:99999)
  expect_identical(out$d, out$i * 0.5)
  expect_identical(vector_info(out$i)$state, "materialized copy")
})

test_that("a change in R makes a private copy and leaves the segment file unchanged", {
  con <- stored_db()
  path <- DBI::dbGetInfo(con)$dbname
  out <- DBI::dbGetQuery(con, "SELECT d, i FROM t")
  before <- checksums(path)
  mapped <- vector_info(out$d)$address
  first <- out$d[1:2]
  first_i <- out$i[1:2]
  d <- out$d
  d[1] <- 42
  expect_identical(d[1:2], c(42, first[2]))
  expect_identical(out$d[1:2], first)
  expect_false(identical(vector_info(d)$address, mapped))
  expect_identical(vector_info(d)$altrep, "")
  # C code asking for a writable pointer (REAL(), INTEGER()) gets a private
  # copy, never the mapped page: the write lands in the copy.
  expect_identical(write_first(out$i, 7L), 7L)
  expect_identical(vector_info(out$i)$state, "materialized copy")
  expect_false(identical(mapped_file_of(vector_info(out$i)$address), mapped_file_of(mapped)))
  expect_identical(out$i[1:2], c(7L, first_i[2]))
  expect_identical(write_first(out$d, -1), -1)
  expect_identical(vector_info(out$d)$state, "materialized copy")
  DBI::dbDisconnect(con)
  expect_identical(checksums(path), before)
  again <- DBI::dbConnect(swingdb::swingdb(), path)
  on.exit(DBI::dbDisconnect(again))
  expect_identical(DBI::dbGetQuery(again, "SELECT i FROM t WHERE i < 2 ORDER BY i")$i, c(0L, 1L))
  expect_identical(DBI::dbGetQuery(again, "SELECT d FROM t WHERE i = $1", params = list(first_i[1]))$d, first[1])
})

test_that("columns with NULLs, dates, booleans and strings are lazy: each element on access", {
  con <- local_db()
  DBI::dbExecute(con, "CREATE TABLE n AS SELECT CASE WHEN value % 3 = 0 THEN NULL ELSE value END AS v, CAST(value AS INTEGER) % 2 = 0 AS flag, CAST('2020-01-01' AS DATE) + CAST(value AS INTEGER) AS day, 'row ' || value AS s FROM range(10)")
  out <- DBI::dbGetQuery(con, "SELECT * FROM n")
  for (name in names(out)) {
    expect_identical(vector_info(out[[name]])$state, "lazy", info = name)
  }
  expect_identical(as.numeric(out$v[1:4]), c(NA, 1, 2, NA))
  expect_identical(out$flag[1:3], c(TRUE, FALSE, TRUE))
  expect_identical(out$day[2], as.Date("2020-01-02"))
  expect_identical(out$s[10], "row 9")
  expect_identical(vector_info(out$s)$state, "lazy")
  expect_identical(is.na(out$v), rep(c(TRUE, FALSE, FALSE), length.out = 10))
})

test_that("vectors keep their mapping alive after dbDisconnect and after DROP TABLE", {
  dir <- tempfile("swingdb-life-")
  path <- file.path(dir, "life.swingdb")
  con <- DBI::dbConnect(swingdb::swingdb(), path)
  DBI::dbExecute(con, "CREATE TABLE t AS SELECT CAST(value AS DOUBLE) AS d FROM range(50000)")
  out <- DBI::dbGetQuery(con, "SELECT d FROM t")
  address <- vector_info(out$d)$address
  DBI::dbExecute(con, "DROP TABLE t")
  DBI::dbDisconnect(con)
  other <- DBI::dbConnect(swingdb::swingdb(), path)
  DBI::dbExecute(other, "CREATE TABLE u AS SELECT 1.0 AS x FROM range(50000)")
  DBI::dbDisconnect(other)
  gc()
  expect_identical(vector_info(out$d)$address, address)
  expect_false(is.na(mapped_file_of(address)))
  expect_identical(sum(out$d), sum(as.numeric(0:49999)))
  expect_identical(max(out$d), 49999)
  rm(out)
  gc()
  unlink(dir, recursive = TRUE)
})

test_that("a registered data frame is queried in place, and dbWriteTable reads R's doubles without copying them first", {
  con <- local_db()
  df <- data.frame(x = as.numeric(1:100000), k = rep(1:4, 25000L), s = rep(c("a", "b"), 50000L))
  df$x[5] <- NA
  swingdb::swingdb_register(con, "r", df)
  got <- DBI::dbGetQuery(con, "SELECT k, sum(x) AS sx, count(x) AS nx, count(*) AS n FROM r GROUP BY k ORDER BY k")
  expect_identical(got$k, 1:4)
  expect_identical(as.numeric(got$nx), c(24999, 25000, 25000, 25000))
  expect_equal(got$sx[1], sum(df$x[df$k == 1], na.rm = TRUE))
  expect_equal(got$sx[2], sum(df$x[df$k == 2], na.rm = TRUE))
  expect_true(DBI::dbExistsTable(con, "r"))
  expect_true(swingdb::swingdb_unregister(con, "r"))
  expect_false(DBI::dbExistsTable(con, "r"))
  DBI::dbWriteTable(con, "w", df)
  expect_identical(DBI::dbGetQuery(con, "SELECT count(x) AS n FROM w")$n, bit64::as.integer64(99999))
  gc()
  expect_identical(df$x[1:6], c(1, 2, 3, 4, NA, 6))
})

test_that("a registered data frame's doubles and integers are the engine's buffers: no copy in, none out", {
  con <- local_db()
  df <- data.frame(x = as.numeric(1:70000), i = 1:70000)
  swingdb::swingdb_register(con, "r", df)
  got <- DBI::dbGetQuery(con, "SELECT x, i FROM r")
  # The engine scans R's own memory: ten rows of it, fetched, lie inside R's
  # vectors (the registration is cut into batches of 65536 rows, and the
  # rows may come from either batch).
  first <- DBI::dbGetQuery(con, "SELECT x, i FROM r LIMIT 10")
  inside <- function(part, whole, width) {
    offset <- vector_info(part)$address - vector_info(whole)$address
    offset >= 0 && offset + width * length(part) <= width * length(whole) && offset %% width == 0
  }
  expect_true(inside(first$x, df$x, 8))
  expect_true(inside(first$i, df$i, 4))
  expect_identical(first$x, as.numeric(first$i))
  expect_identical(sum(got$x), sum(df$x))
  swingdb::swingdb_unregister(con, "r")
})
