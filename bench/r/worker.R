# One series of measurements of bench/r_bench.py, in a fresh R process:
#   Rscript bench/r/worker.R '<json job>'
# prints one JSON line {"times": [...], "rows": n, "check": x, "alloc": bytes}.
# Packages are loaded before the clock starts. A cold run times opening the
# data (dbConnect, or readRDS for data.table and dplyr) plus the operation,
# with the result in R vectors; a warm run opens once, runs once untimed, then
# times `runs` runs. `alloc` is what R allocated during the last timed run
# (utils::Rprofmem), for the handoff's memory claim.
suppressPackageStartupMessages({
  library(DBI)
  library(jsonlite)
})
job <- fromJSON(commandArgs(trailingOnly = TRUE)[[1]])
SEL_RANGE <- 1000000

sql_of <- function(kind, param) {
  switch(kind,
    select = sprintf("SELECT * FROM t WHERE sel < %d", as.integer(param) * SEL_RANGE %/% 100),
    project = sprintf("SELECT id, v1 FROM t WHERE sel < %d", as.integer(param) * SEL_RANGE %/% 100),
    group = if (param == "1") "SELECT COUNT(*) AS n, SUM(v1) AS s FROM t" else {
      key <- if (param == "500") "g500" else "gtenth"
      sprintf("SELECT %s, COUNT(*) AS n, SUM(v1) AS s FROM t GROUP BY %s", key, key)
    },
    join = sprintf("SELECT t.id, t.v1, s.w FROM t JOIN s%s AS s ON t.id = s.id", param),
    transfer = job$sql
  )
}

# Opens the data: a connection, or the tables read into memory.
open_data <- function() {
  switch(job$system,
    swingdb = dbConnect(swingdb::swingdb(), job$paths$swingdb, read_only = TRUE, bigint = "numeric"),
    RSQLite = dbConnect(RSQLite::SQLite(), job$paths$sqlite, flags = RSQLite::SQLITE_RO),
    data.table = lapply(job$paths$rds, function(f) data.table::setDT(readRDS(f))),
    dplyr = lapply(job$paths$rds, readRDS)
  )
}

run_dt <- function(d, kind, param) {
  t <- d$t
  limit <- as.integer(param) * SEL_RANGE %/% 100
  switch(kind,
    select = t[sel < limit],
    project = t[sel < limit, list(id, v1)],
    group = if (param == "1") t[, list(n = .N, s = sum(v1))] else if (param == "500") t[, list(n = .N, s = sum(v1)), by = g500] else t[, list(n = .N, s = sum(v1)), by = gtenth],
    join = d[[paste0("s", param)]][t, on = "id", nomatch = NULL, list(id, v1, w)]
  )
}

run_dplyr <- function(d, kind, param) {
  t <- d$t
  limit <- as.integer(param) * SEL_RANGE %/% 100
  switch(kind,
    select = dplyr::filter(t, sel < limit),
    project = dplyr::select(dplyr::filter(t, sel < limit), id, v1),
    group = if (param == "1") dplyr::summarise(t, n = dplyr::n(), s = sum(as.numeric(v1))) else {
      key <- if (param == "500") "g500" else "gtenth"
      dplyr::summarise(dplyr::group_by(t, .data[[key]]), n = dplyr::n(), s = sum(as.numeric(v1)), .groups = "drop")
    },
    join = dplyr::select(dplyr::inner_join(t, d[[paste0("s", param)]], by = "id"), id, v1, w)
  )
}

# Reads every value of a result (a sum per numeric column, nchar of text).
touch <- function(result) {
  for (col in result) {
    if (is.character(col)) sum(nchar(col)) else sum(as.numeric(col))
  }
  result
}

run <- function(d) {
  out <- switch(job$system,
    data.table = run_dt(d, job$kind, job$param),
    dplyr = run_dplyr(d, job$kind, job$param),
    dbGetQuery(d, sql_of(job$kind, job$param))
  )
  if (isTRUE(job$touch)) touch(out) else out
}

close_data <- function(d) if (is(d, "DBIConnection")) dbDisconnect(d)

suppressPackageStartupMessages(switch(job$system,
  swingdb = library(swingdb),
  RSQLite = library(RSQLite),
  data.table = library(data.table),
  dplyr = library(dplyr)
))
if (job$system == "data.table") data.table::setDTthreads(0)

timed <- function(f) {
  t0 <- Sys.time()
  out <- f()
  list(out = out, seconds = as.numeric(Sys.time() - t0, units = "secs"))
}

# Bytes R allocated while f ran (large vectors and pages of small ones).
allocated <- function(f) {
  log <- tempfile()
  utils::Rprofmem(log, threshold = 0)
  out <- f()
  utils::Rprofmem(NULL)
  lines <- readLines(log)
  unlink(log)
  bytes <- suppressWarnings(as.numeric(sub(" ?:.*", "", lines)))
  list(out = out, bytes = sum(bytes[!is.na(bytes)]))
}

times <- numeric()
if (job$mode == "cold") {
  r <- timed(function() {
    d <- open_data()
    list(d = d, result = run(d))
  })
  times <- r$seconds
  result <- r$out$result
  a <- allocated(function() run(r$out$d))
  close_data(r$out$d)
} else {
  d <- open_data()
  invisible(run(d))
  for (i in seq_len(job$runs)) {
    r <- timed(function() run(d))
    times <- c(times, r$seconds)
  }
  result <- r$out
  a <- allocated(function() run(d))
  close_data(d)
}
last <- result[[ncol(result)]]
check <- if (nrow(result) && is.numeric(last)) sum(as.numeric(last)) else nrow(result)
cat(toJSON(list(times = I(times), rows = nrow(result), check = format(check, scientific = FALSE), alloc = a$bytes), auto_unbox = TRUE, digits = NA), "\n")
