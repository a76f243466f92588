# swingdb: `make demo` and `make test` work on a fresh clone (they set up .venv).
SHELL := /bin/bash
# Build artifacts live outside the clone so that CI and later sessions reuse them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/swingdb-target
VENV := $(CURDIR)/.venv
PY := $(VENV)/bin/python
SCALE ?= 0.1

.PHONY: hot-code setup debs jars build build-stress demo lint test test-rust test-python test-r check-r bench-r stress bench wheel wheel-test clean

$(VENV)/.deps: requirements-dev.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

setup: $(VENV)/.deps

# Debian packages the tests use: strace injects syscall delays (the lost-commit
# regression test); PostgreSQL (server and psql) is the real peer of the pipe tests,
# started by them in a temporary directory, and the sqlite3 shell writes CSV into a
# FIFO in one of them; Java runs Spark (pyspark) in the Spark data source's test,
# and javac compiles the JDBC client of the Flight SQL JDBC test;
# openssl makes the TLS tests' certificates, iproute2 (ip, tc) the network
# namespaces of the tests across hosts; mount and runuser (util-linux) are on
# every Debian system. R and the R packages the R package uses or is tested
# against (DBI, DBItest, testthat, dbplyr, data.table, RSQLite, bit64; no CRAN
# is reachable here) come from Debian too. Without root (or sudo) the install is skipped with a warning
# and the tests that need a missing package skip; the failpoint test in
# crates/swingdb/tests/failpoints.rs covers the strace test's race.
R_PACKAGES := DBI DBItest testthat withr dbplyr dplyr data.table RSQLite bit64 blob hms jsonlite
debs:
	@missing=""; command -v strace >/dev/null || missing="$$missing strace"; \
	  command -v sqlite3 >/dev/null || missing="$$missing sqlite3"; \
	  ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	  command -v java >/dev/null || missing="$$missing openjdk-17-jre-headless"; \
	  command -v javac >/dev/null || missing="$$missing openjdk-17-jdk-headless"; \
	  command -v openssl >/dev/null || missing="$$missing openssl"; \
	  command -v ip >/dev/null && command -v tc >/dev/null || missing="$$missing iproute2"; \
	  command -v Rscript >/dev/null && Rscript -e 'for (p in c($(foreach p,$(R_PACKAGES),"$(p)",)NULL)) if (!requireNamespace(p, quietly = TRUE)) quit(status = 1)' 2>/dev/null \
	    || missing="$$missing r-base-dev $(foreach p,$(R_PACKAGES),r-cran-$(shell echo $(p) | tr A-Z a-z))"; \
	  [ -z "$$missing" ] || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; } \
	  || echo "warning: could not install$$missing; the tests that need it will be skipped"

# Java jars from Maven Central that tests and benchmarks run against: the Arrow
# Flight SQL JDBC driver (what DBeaver-style JDBC tools use to reach
# `swingdb serve`) and PostgreSQL's JDBC driver (Spark's JDBC reader in the
# pipes bench). Fetched by Maven (the machine's mvn) into a cache outside the
# clone; without mvn the JDBC test skips, saying so.
JARS ?= $(HOME)/.cache/swingdb-jars
export SWINGDB_JARS := $(JARS)
FLIGHT_SQL_JDBC := org.apache.arrow:flight-sql-jdbc-driver:18.1.0
POSTGRES_JDBC := org.postgresql:postgresql:42.7.7
jars:
	@mkdir -p $(JARS); command -v mvn >/dev/null || { echo "warning: no mvn; the JDBC test will be skipped"; exit 0; }; \
	  for artifact in $(FLIGHT_SQL_JDBC) $(POSTGRES_JDBC); do \
	    jar=$$(echo $$artifact | awk -F: '{print $$2 "-" $$3 ".jar"}'); \
	    [ -f $(JARS)/$$jar ] || mvn -q dependency:copy -Dartifact=$$artifact -DoutputDirectory=$(JARS) \
	      || echo "warning: could not fetch $$artifact; the tests that need it will be skipped"; \
	  done

# Builds the Python extension into .venv, the `swingdb` shell into .venv/bin (the
# program, over the package's console script: the same code, started without Python)
# and the C interface the R package links (in the same cargo run, so that the two
# share every compiled dependency).
# The package's bytecode is compiled as pip does when it installs a wheel: the editable
# install does not, and with PYTHONDONTWRITEBYTECODE set (as on this machine) every
# fresh process would compile the package again when it imports it.
build: setup
	VIRTUAL_ENV=$(VENV) $(VENV)/bin/maturin develop --release -q -m python/Cargo.toml
	$(PY) -m compileall -q python/swingdb
	cargo build --release -q -p swingdb-cli -p swingdb-capi
	install -m 755 $(CARGO_TARGET_DIR)/release/swingdb $(VENV)/bin/swingdb

# The torture suite's worker: the core built a second time, with failpoints (never in
# the package or the shell), which only the tests and `make stress` need (5 of the 22
# minutes of a cold `make demo` when the demo built it too).
build-stress: build
	cargo build --release -q -p swingdb-stress

# One abi3 wheel (CPython >= 3.10) for manylinux_2_17 x86_64 in dist/, with the
# extension, the `swingdb` command (a console entry point into the same shell code),
# type stubs and py.typed. zig (ziglang from PyPI) links it against glibc 2.17's
# symbols: no container or old system needed. Its own target directory, because
# zig's linker and the wheel profile would otherwise rebuild what `make build` keeps.
WHEEL_TARGET_DIR ?= $(HOME)/.cache/swingdb-wheel-target
wheel: setup
	$(PY) -m pip install -q "ziglang==0.15.2" "auditwheel>=6"
	rm -f dist/swingdb-*.whl
	PATH=$(VENV)/bin:$$PATH CARGO_TARGET_DIR=$(WHEEL_TARGET_DIR) $(VENV)/bin/maturin build -q --profile wheel \
	  --zig --compatibility manylinux2014 --target x86_64-unknown-linux-gnu -m python/Cargo.toml --out dist
	$(VENV)/bin/auditwheel show dist/swingdb-*.whl | tee /dev/stderr | tr -s ' \n' ' ' \
	  | grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"'
	@ls -l dist/swingdb-*.whl

# The wheel as a user installs it (not part of `make test`: it rebuilds everything):
# a fresh venv with the wheel and its dependencies from PyPI, no Rust on PATH, then
# tests/wheel_check.py (README quickstart, a zero-copy fetch, the swingdb command,
# a snapshot and a pipe between two processes); then again with numpy as the only
# other package (rows and numpy views without pyarrow).
WHEEL_VENV := $(CURDIR)/.wheel-venv
wheel-test: wheel
	rm -rf $(WHEEL_VENV)
	python3 -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install -q --only-binary=:all: "$$(ls dist/swingdb-*.whl)[pandas,polars]"
	@du -sh $(WHEEL_VENV)/lib/python3*/site-packages/swingdb
	cd /tmp && env -u CARGO_TARGET_DIR PATH=$(WHEEL_VENV)/bin:/usr/bin:/bin \
	  $(WHEEL_VENV)/bin/python $(CURDIR)/tests/wheel_check.py $(CURDIR)/README.md
	rm -rf $(WHEEL_VENV)
	python3 -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install -q --only-binary=:all: "$$(ls dist/swingdb-*.whl)[numpy]"
	@du -sh $(WHEEL_VENV)/lib/python3*/site-packages
	cd /tmp && env -u CARGO_TARGET_DIR PATH=$(WHEEL_VENV)/bin:/usr/bin:/bin \
	  $(WHEEL_VENV)/bin/python $(CURDIR)/tests/wheel_check.py --numpy-only
	rm -rf $(WHEEL_VENV)

# Regenerates python/hot-code.txt, the functions a first use runs, which the
# linker places together (python/build.rs); after dependency upgrades, or when
# test_a_first_query_touches_little_of_the_extensions_code fails. Needs valgrind.
hot-code: build
	command -v valgrind >/dev/null || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq valgrind; }
	$(PY) python/hot_code.py
	VIRTUAL_ENV=$(VENV) $(VENV)/bin/maturin develop --release -q -m python/Cargo.toml
	$(PY) -c "import sys, swingdb; sys.exit(0 if swingdb._swingdb._hot_code_first else 'the extension was linked without python/hot-code.txt (see python/build.rs)')"

demo: build
	$(PY) examples/demo.py --scale $(SCALE)

test-rust:
	cargo test --release --workspace --exclude swingdb-python

# Two processes share the tests (pytest-xdist): 2m56 instead of 5m10 here.
PYTEST_WORKERS ?= 2
test-python: build-stress debs jars
	PATH=$(VENV)/bin:$$PATH $(PY) -m pytest -q -n $(PYTEST_WORKERS) tests

# Formatting and lints (rustfmt.toml, [workspace.lints] in Cargo.toml, ruff.toml),
# all as errors. The workspace is linted with failpoints on (swingdb-stress asks for
# them); the code they switch lives in swingdb-storage alone (elsewhere a failpoint
# is a call that does nothing without them), so that crate is linted without them
# too, not the crates above it a second time.
lint: setup
	cargo fmt --all -- --check
	cargo clippy --release -q --workspace --all-targets -- -D warnings
	cargo clippy --release -q -p swingdb-storage --lib -- -D warnings
	$(VENV)/bin/ruff check python tests bench stress examples

# The R package, installed into a library of its own outside the clone, and its
# tests (testthat, with DBItest's suite) and the README's R examples. `check-r` is
# R CMD check on it, which fails on warnings too (R CMD check itself fails on errors
# only); its one note is the package's size (its library holds the whole engine).
# It is not part of `make test`: CI's fresh-clone run is close to its time limit,
# and the tests it runs are the ones test-r runs.
R_LIB ?= $(HOME)/.cache/swingdb-rlib
export SWINGDB_SOURCE := $(CURDIR)
test-r: build debs
	@command -v Rscript >/dev/null || { echo "warning: R is not installed (make debs could not install it); the R tests are skipped"; exit 0; }; \
	  mkdir -p $(R_LIB) && R CMD INSTALL --preclean --no-test-load --library=$(R_LIB) r/swingdb >$(R_LIB)/install.log 2>&1 \
	    || { cat $(R_LIB)/install.log; exit 1; }; \
	  cd r/swingdb/tests && TZ=UTC R_LIBS=$(R_LIB) Rscript testthat.R && \
	  cd $(CURDIR) && TZ=UTC R_LIBS=$(R_LIB) Rscript r/readme_examples.R README.md

check-r: build debs
	rm -rf $(R_LIB)/check && mkdir -p $(R_LIB)/check
	cd $(R_LIB)/check && R CMD build --no-build-vignettes $(CURDIR)/r/swingdb && \
	  TZ=UTC _R_CHECK_FORCE_SUGGESTS_=false R CMD check --no-manual swingdb_*.tar.gz
	@! grep -E "^Status:.*(WARNING|ERROR)" $(R_LIB)/check/swingdb.Rcheck/00check.log \
	  || { echo "R CMD check gave warnings (see above)"; exit 1; }

# Each stage in turn, with the time it took (cold and warm numbers: docs/build.md).
TEST_STAGES := lint build test-rust test-python test-r
test:
	@for stage in $(TEST_STAGES); do \
	  start=$$(date +%s); $(MAKE) --no-print-directory $$stage || exit 1; \
	  took="$$took $$stage $$(( $$(date +%s) - start ))s"; echo "make test: $$stage took $$(( $$(date +%s) - start )) s"; \
	done; echo "make test: stages:$$took"

# The full torture run (make stress STRESS_ARGS="--minutes 90 --report docs/reliability.md").
STRESS_ARGS ?= --minutes 10
stress: build-stress
	PATH=$(VENV)/bin:$$PATH $(PY) -m stress $(STRESS_ARGS)

$(VENV)/.bench-deps: requirements-bench.txt $(VENV)/.deps
	$(PY) -m pip install -q -r requirements-bench.txt
	touch $@

# e.g. make bench BENCH_ARGS="transfer --scale 1 --postgres"
bench: build $(VENV)/.bench-deps jars
	$(PY) -m bench $(BENCH_ARGS)

# Seed 000's experiments in R (bench/r_bench.py), e.g. make bench-r BENCH_ARGS="--quick".
bench-r: test-r $(VENV)/.bench-deps
	$(PY) -m bench r $(BENCH_ARGS)

clean:
	rm -rf $(VENV) demo-data
