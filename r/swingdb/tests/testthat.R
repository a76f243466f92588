library(testthat)
library(swingdb)
test_check("swingdb")
