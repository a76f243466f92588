# DBI's own conformance suite (DBItest), against an on-disk database in a
# temporary directory. Every skipped test is listed with the reason.
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
  DBItest::test_all(skip = c())
}
