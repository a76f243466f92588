# Errors of the engine as R conditions. Each carries the class of its kind
# (after the DB-API's names: swingdb_programming_error, swingdb_data_error,
# swingdb_integrity_error, swingdb_operational_error, ...), then
# "swingdb_error", "error" and "condition", and the engine's message, which
# names the object and the fix where there is one.

error_kinds <- c(
  "programming", "data", "integrity", "operational", "conflict",
  "corruption", "not_supported", "internal", "interrupted"
)

# Called by the C side (swingdb_r.c) with the engine's error kind and message.
raise_error <- function(kind, message) {
  name <- if (kind >= 1L && kind <= length(error_kinds)) error_kinds[[kind]] else "internal"
  stop(structure(
    class = c(paste0("swingdb_", name, "_error"), "swingdb_error", "error", "condition"),
    list(message = message, call = NULL, kind = name)
  ))
}

# An error of the package itself (a wrong argument, a closed connection), as
# the same conditions as the engine's: `kind` is one of error_kinds.
fail <- function(kind, ...) {
  raise_error(match(kind, error_kinds), paste0(...))
}

# `x` as UTF-8 text for the engine; an error names `what` and the first value
# that is not text (bytes that are not UTF-8 in a string marked UTF-8 or
# native), rather than storing them escaped (`a<ff>b`) or garbled.
utf8_text <- function(x, what) {
  bad <- !is.na(x) & Encoding(x) != "latin1" & !validUTF8(x)
  if (any(bad)) {
    i <- which(bad)[[1]]
    bytes <- paste(sprintf("%02x", as.integer(charToRaw(x[[i]])))[seq_len(min(nchar(x[[i]], "bytes"), 12L))], collapse = " ")
    fail(
      "data", what, ": value ", i, " is not UTF-8 text (bytes ", bytes, "); convert it with ",
      "iconv(x, from = \"latin1\", to = \"UTF-8\") or the encoding it is in, or store raw bytes as a blob (list of raw vectors)"
    )
  }
  enc2utf8(x)
}
