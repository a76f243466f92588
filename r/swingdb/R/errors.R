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
