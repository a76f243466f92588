# Reads CSV files (a header line, integer columns) and saves each as an
# uncompressed RDS file, the fastest form R itself reads a data frame back from:
#   Rscript bench/r/prepare.R a.csv a.rds [b.csv b.rds ...]
args <- commandArgs(trailingOnly = TRUE)
for (i in seq(1, length(args), by = 2)) {
  df <- as.data.frame(data.table::fread(args[[i]], showProgress = FALSE))
  saveRDS(df, args[[i + 1]], compress = FALSE)
}
