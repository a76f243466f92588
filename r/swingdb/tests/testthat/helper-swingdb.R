# A fresh on-disk database in a temporary directory, disconnected at the end
# of the calling test.
local_db <- function(..., env = parent.frame()) {
  dir <- tempfile("swingdb-test-")
  con <- DBI::dbConnect(swingdb::swingdb(), file.path(dir, "test.swingdb"), ...)
  withr::defer(
    {
      if (DBI::dbIsValid(con)) DBI::dbDisconnect(con)
      unlink(dir, recursive = TRUE)
    },
    envir = env
  )
  con
}

vector_info <- function(x) .Call(swingdb:::C_swingdb_r_vector_info, x)

# The mapped files of this process (from /proc/self/maps) holding address a.
mapped_file_of <- function(a) {
  maps <- readLines("/proc/self/maps")
  for (line in maps) {
    fields <- strsplit(line, " +")[[1]]
    range <- strsplit(fields[[1]], "-")[[1]]
    lo <- as.numeric(paste0("0x", range[[1]]))
    hi <- as.numeric(paste0("0x", range[[2]]))
    if (a >= lo && a < hi) return(if (length(fields) >= 6) fields[[6]] else "")
  }
  NA_character_
}

# Writes value into element 1 of x through the writable data pointer, as C
# code calling REAL() / INTEGER() does; returns what element 1 reads then.
write_first <- function(x, value) .Call(swingdb:::C_swingdb_r_write_first, x, value)
