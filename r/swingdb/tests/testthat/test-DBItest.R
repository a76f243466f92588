# DBI's own conformance suite (DBItest 1.7.3, 414 tests), against an on-disk
# database in a temporary directory. Every skipped test is listed with the
# reason: 6 here, and the 5 DBItest skips itself for temporary_tables = FALSE.
if (requireNamespace("DBItest", quietly = TRUE)) {
  DBItest::make_context(
    swingdb::swingdb(),
    list(dbdir = file.path(tempfile("swingdb-dbitest-"), "dbitest.swingdb")),
    tweaks = DBItest::tweaks(
      placeholder_pattern = c("?", "$1"),
      date_cast = function(x) paste0("CAST('", x, "' AS DATE)"),
      time_cast = function(x) paste0("CAST('", x, "' AS TIME)"),
      timestamp_cast = function(x) paste0("CAST('", x, "' AS TIMESTAMP)"),
      # swingdb has no temporary tables (swingdb_register() is the per-connection table)
      temporary_tables = FALSE,
      list_temporary_tables = FALSE,
      dbitest_version = "1.7.3"
    ),
    name = "swingdb"
  )
  DBItest::test_all(skip = c(
    # DBI's naming convention (RSQLite, RPostgres): the package is named
    # after the database, as its Python package is.
    "package_name",
    # These five run UPDATE statements on a table DBItest makes with
    # dbWriteTable(temporary = TRUE); swingdb has no temporary tables yet
    # (five more tests are skipped by DBItest itself for the same reason,
    # through the temporary_tables tweak). Their query forms run and pass.
    "bind_return_value",
    "bind_multi_row_unequal_length",
    "bind_multi_row_statement",
    "bind_repeated",
    "bind_repeated_untouched"
  ))
}
