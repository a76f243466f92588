# Snapshots between R processes: one shares, another attaches and reads.
test_that("a snapshot shared here is attached by another R process", {
  con <- local_db()
  DBI::dbWriteTable(con, "t", data.frame(a = 1:1000, b = as.numeric(1:1000) / 4))
  name <- paste0("r-test-", Sys.getpid(), "-", sample.int(1e6, 1))
  expect_equal(swingdb::swingdb_share(con, name), 1000)
  # Changes after the share are not in the snapshot.
  DBI::dbExecute(con, "DELETE FROM t WHERE a > 10")
  here <- swingdb::swingdb_attach(name)
  expect_identical(DBI::dbGetQuery(here, "SELECT count(*) AS n FROM t")$n, bit64::as.integer64(1000))
  # The attached copy is private: writing to it leaves the source alone.
  DBI::dbExecute(here, "DELETE FROM t WHERE a <= 500")
  expect_identical(DBI::dbGetQuery(here, "SELECT count(*) AS n FROM t")$n, bit64::as.integer64(500))
  DBI::dbDisconnect(here)
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "con <- swingdb::swingdb_attach(commandArgs(TRUE)[[1]], bigint = 'numeric')",
    "cat(DBI::dbGetQuery(con, 'SELECT count(*) AS n, sum(b) AS s FROM t')$s)"
  ), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), c(script, name), stdout = TRUE, env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  expect_identical(as.numeric(out[[length(out)]]), sum(as.numeric(1:1000) / 4))
  expect_identical(DBI::dbGetQuery(con, "SELECT count(*) AS n FROM t")$n, bit64::as.integer64(10))
})

test_that("attaching a snapshot that does not exist is a clear error", {
  expect_error(swingdb::swingdb_attach(paste0("no-such-snapshot-", Sys.getpid())), class = "swingdb_error")
})
