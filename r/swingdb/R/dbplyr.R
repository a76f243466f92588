# dbplyr's backend for swingdb: `tbl(con, "lineitem") |> filter() |>
# group_by() |> summarise() |> collect()` in swingdb's SQL (DataFusion's
# dialect, close to PostgreSQL's). Registered lazily (NAMESPACE), so dbplyr
# stays optional.

dbplyr_edition.swingdb_connection <- function(con) 2L

db_connection_describe.swingdb_connection <- function(con) {
  paste0("swingdb [", con@dbdir, "]")
}

sql_translation.swingdb_connection <- function(con) {
  sql <- dbplyr::sql
  cast <- function(type) function(x) dbplyr::build_sql("CAST(", x, " AS ", sql(type), ")", con = con)
  # R's as.integer() truncates toward zero, while SQL's CAST rounds (half to
  # even, as DuckDB and PostgreSQL do); DuckDB's backend truncates first too.
  # Through DECIMAL(38, 18): exact for every BIGINT and for text like '12.7'.
  truncate_to <- function(type) function(x) {
    dbplyr::build_sql("CAST(TRUNC(CAST(", x, " AS DECIMAL(38, 18))) AS ", sql(type), ")", con = con)
  }
  dbplyr::sql_variant(
    dbplyr::sql_translator(
      .parent = dbplyr::base_scalar,
      as.numeric = cast("DOUBLE"),
      as.double = cast("DOUBLE"),
      as.integer = truncate_to("INTEGER"),
      as.integer64 = truncate_to("BIGINT"),
      as.character = cast("VARCHAR"),
      as.logical = cast("BOOLEAN"),
      as.Date = cast("DATE"),
      log = function(x, base = exp(1)) {
        if (isTRUE(all.equal(base, exp(1)))) dbplyr::build_sql("LN(", x, ")", con = con)
        else dbplyr::build_sql("LOG(", base, ", ", x, ")", con = con)
      },
      nchar = dbplyr::sql_prefix("CHARACTER_LENGTH", 1),
      grepl = function(pattern, x) dbplyr::build_sql("REGEXP_LIKE(", x, ", ", pattern, ")", con = con)
    ),
    dbplyr::sql_translator(
      .parent = dbplyr::base_agg,
      sd = dbplyr::sql_aggregate("STDDEV_SAMP", "sd"),
      var = dbplyr::sql_aggregate("VAR_SAMP", "var"),
      median = dbplyr::sql_aggregate("MEDIAN", "median"),
      n_distinct = function(x) dbplyr::build_sql("COUNT(DISTINCT ", x, ")", con = con)
    ),
    dbplyr::sql_translator(
      .parent = dbplyr::base_win,
      sd = dbplyr::win_aggregate("STDDEV_SAMP"),
      var = dbplyr::win_aggregate("VAR_SAMP"),
      median = dbplyr::win_aggregate("MEDIAN")
    )
  )
}
