# DBI's own conformance suite (DBItest 1.7.3, 414 tests), against an on-disk
# database in a temporary directory. Every skipped test is listed with the
# reason: 1 here.
if (requireNamespace("DBItest", quietly = TRUE)) {
  DBItest::make_context(
    swingdb::swingdb(),
    list(dbdir = file.path(tempfile("swingdb-dbitest-"), "dbitest.swingdb")),
    tweaks = DBItest::tweaks(
      placeholder_pattern = c("?", "$1"),
      date_cast = function(x) paste0("CAST('", x, "' AS DATE)"),
      time_cast = function(x) paste0("CAST('", x, "' AS TIME)"),
      timestamp_cast = function(x) paste0("CAST('", x, "' AS TIMESTAMP)"),
      # Temporary tables are private to the connection and listed by dbListTables().
      temporary_tables = TRUE,
      list_temporary_tables = TRUE,
      dbitest_version = "1.7.3"
    ),
    name = "swingdb"
  )
  DBItest::test_all(skip = c(
    # DBI's naming convention (RSQLite, RPostgres): the package is named
    # after the database, as its Python package is.
    "package_name"
  ))
}
