# Runs the R code blocks of a Markdown file (README.md) as written:
#   Rscript r/readme_examples.R README.md
# (make test-r runs it with the package installed); fails on any error or warning.
lines <- readLines(commandArgs(trailingOnly = TRUE)[[1]])
starts <- which(lines == "```r")
if (!length(starts)) stop("no R code blocks in ", commandArgs(trailingOnly = TRUE)[[1]])
options(warn = 2)
for (start in starts) {
  end <- start + which(lines[(start + 1):length(lines)] == "```")[[1]]
  code <- lines[(start + 1):(end - 1)]
  cat("running the R block at line", start, "\n")
  eval(parse(text = code), envir = new.env())
}
