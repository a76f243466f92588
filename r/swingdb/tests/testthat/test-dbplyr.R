# dbplyr's verbs become swingdb SQL and give the answers dplyr gives in R.
test_that("filter, group_by, summarise and collect agree with dplyr on a data frame", {
  skip_if_not_installed("dbplyr")
  skip_if_not_installed("dplyr")
  con <- local_db()
  set.seed(1)
  df <- data.frame(
    k = sample(c("a", "b", "c"), 2000, replace = TRUE),
    x = round(runif(2000, 0, 100), 2),
    n = sample(1:50, 2000, replace = TRUE),
    day = as.Date("2024-01-01") + sample(0:30, 2000, replace = TRUE),
    stringsAsFactors = FALSE
  )
  df$x[c(3, 30, 300)] <- NA
  DBI::dbWriteTable(con, "sales", df)
  query <- function(d) {
    d |>
      dplyr::filter(n > 10, day < as.Date("2024-01-20")) |>
      dplyr::group_by(k) |>
      dplyr::summarise(total = sum(x, na.rm = TRUE), rows = dplyr::n(), top = max(n, na.rm = TRUE), mean_x = mean(x, na.rm = TRUE)) |>
      dplyr::arrange(k)
  }
  lazy <- query(dplyr::tbl(con, "sales"))
  expect_match(dbplyr::sql_render(lazy), "GROUP BY")
  got <- dplyr::collect(lazy)
  want <- query(df)
  expect_identical(got$k, want$k)
  expect_equal(got$total, want$total)
  expect_equal(as.numeric(got$rows), as.numeric(want$rows))
  expect_equal(as.numeric(got$top), as.numeric(want$top))
  expect_equal(got$mean_x, want$mean_x)
})

test_that("translations of casts, text and regular expressions run on swingdb", {
  skip_if_not_installed("dbplyr")
  con <- local_db()
  DBI::dbWriteTable(con, "w", data.frame(s = c("apple", "banana", NA), v = c(1.5, 2.5, 3.5), stringsAsFactors = FALSE))
  got <- dplyr::tbl(con, "w") |>
    dplyr::mutate(len = nchar(s), whole = as.integer(v), txt = paste0(s, "!"), hit = grepl("an", s), l = log(v), sd = sd(v, na.rm = TRUE)) |>
    dplyr::arrange(v) |>
    dplyr::collect()
  expect_equal(as.numeric(got$len), c(5, 6, NA))
  expect_identical(got$txt[1:2], c("apple!", "banana!"))
  expect_identical(got$hit, c(FALSE, TRUE, NA))
  expect_equal(got$l, log(c(1.5, 2.5, 3.5)))
  expect_equal(got$sd[1], sd(c(1.5, 2.5, 3.5)))
  expect_equal(as.numeric(got$whole), as.numeric(as.integer(c(1.5, 2.5, 3.5))))
})
