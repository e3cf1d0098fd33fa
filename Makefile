# Two commands set up a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One stamp for the runtime install (`make run`), one for the dev extras (the rest):
# serving needs none of the ~50 packages the test tools add.
DIGEST := $(shell sha1sum pyproject.toml | cut -c1-12)
RUN_STAMP := $(VENV)/.installed-run-$(DIGEST)
STAMP := $(VENV)/.installed-dev-$(DIGEST)

# The Directus SDK check (tests/directus_sdk) runs node with the SDK pinned there.
SDK_CHECK := tests/directus_sdk
SDK_MODULES := $(SDK_CHECK)/node_modules/.package-lock.json
# The single sign-on tests run a real OpenID provider (oidc-provider, pinned there).
OIDC_PROVIDER := tests/access/openid_provider
OIDC_MODULES := $(OIDC_PROVIDER)/node_modules/.package-lock.json
# The console's browser tests (tests/console) drive Debian's chromium with Playwright,
# which never downloads a browser of its own.
CHROMIUM := /usr/bin/chromium

.PHONY: run test lint typecheck layers unit fuzz bench install clean

# A current pip first: it resolves and installs the dependencies in about 60 % of the
# CPU time of the pip Python 3.11 bundles (10 against 16 s), for 1.5 s of upgrading.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	rm -f $(VENV)/.installed-run-*
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP) $(RUN_STAMP)

# Without npm the SDK check is skipped (tests/directus_sdk/test_directus_sdk.py says so),
# except in CI, where it is mandatory.
$(SDK_MODULES): $(SDK_CHECK)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd $(SDK_CHECK) && npm ci --no-audit --no-fund --loglevel=error; \
	else \
		case "$$(printf %s "$$CI" | tr A-Z a-z)" in 1|true|yes|on) \
			echo "npm is required in CI for the Directus SDK check ($(SDK_CHECK))"; exit 1;; \
		esac; \
		echo "npm not found: the Directus SDK check ($(SDK_CHECK)) will be skipped"; \
	fi

# The same for the OpenID provider of the single sign-on tests.
$(OIDC_MODULES): $(OIDC_PROVIDER)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd $(OIDC_PROVIDER) && npm ci --no-audit --no-fund --loglevel=error; \
	else \
		case "$$(printf %s "$$CI" | tr A-Z a-z)" in 1|true|yes|on) \
			echo "npm is required in CI for the single sign-on tests ($(OIDC_PROVIDER))"; exit 1;; \
		esac; \
		echo "npm not found: the single sign-on tests ($(OIDC_PROVIDER)) will be skipped"; \
	fi

# Without chromium (and no way to install it) the browser tests are skipped
# (tests/console/browser.py says so), except in CI, where they are mandatory.
$(CHROMIUM):
	@if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get install -y --no-install-recommends chromium >/dev/null \
		|| { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium >/dev/null; }; \
	fi
	@if [ ! -x $(CHROMIUM) ]; then \
		case "$$(printf %s "$$CI" | tr A-Z a-z)" in 1|true|yes|on) \
			echo "chromium is required in CI for the console's browser tests (tests/console)"; exit 1;; \
		esac; \
		echo "chromium not installed: the console's browser tests (tests/console) will be skipped"; \
	fi

install: $(STAMP) $(SDK_MODULES) $(OIDC_MODULES) $(CHROMIUM)

run: $(RUN_STAMP)
	mkdir -p var
	$(BIN)/tracepoint serve

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

layers: $(STAMP)
	$(BIN)/lint-imports

# Test workers: two more than the cores, as tests spend much of their time waiting on
# the database (on 2 cores, 4 workers ran the suite in 6 min 51 s, 3 in 7 min 36 s).
# `make unit PYTEST_WORKERS=0` runs them in this process.
PYTEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 2)")

# The tests' temporary files (every SQLite test's database, pytest's tmp_path, the test
# clusters of tests/pg_cluster.py) go to a RAM file system where there is one: on this
# host's disk, making a file took ~0.9 ms and removing one ~0.2 ms, and a SQLite test
# makes and removes several (the database, its WAL and shared memory, its folders). No
# test checks what survives a power cut. `make unit TEST_TMPDIR=` keeps them in TMPDIR.
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm/tracepoint-tests-$$(id -u))

# loadgroup: a module marked `xdist_group` (its own processes or PostgreSQL clusters,
# made once per module) runs in one worker, not once in each.
# Bytecode is written (and __pycache__ is ignored by git) even where the environment says
# not to (PYTHONDONTWRITEBYTECODE, set in some images): else every worker and every
# service a test starts compiles the code and rewrites the tests' assertions again,
# about 4 s of CPU a worker.
unit: $(STAMP) $(SDK_MODULES) $(OIDC_MODULES) $(CHROMIUM)
	$(if $(TEST_TMPDIR),mkdir -p $(TEST_TMPDIR))
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR)) PYTHONDONTWRITEBYTECODE= \
		$(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadgroup

test: lint typecheck layers unit

# A longer schemathesis run than the one `make test` makes: every phase (stateful too),
# valid and invalid requests, FUZZ_EXAMPLES a operation (see docs/openapi.md); the test has
# its own time limit, above the suite's 300 s a test.
FUZZ_EXAMPLES ?= 50
FUZZ_SEED ?= 17
fuzz: $(STAMP)
	TRACEPOINT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) TRACEPOINT_FUZZ_SEED=$(FUZZ_SEED) \
	TRACEPOINT_FUZZ_PHASES=examples,coverage,fuzzing,stateful TRACEPOINT_FUZZ_MODE=all \
	TRACEPOINT_FUZZ_TIMEOUT=3600 $(BIN)/pytest -q -n 0 --timeout=0 tests/openapi/test_fuzz.py

# BENCH_ARGS="--events 100000", TRACE_BENCH_ARGS="--events 100000" and
# ITEM_BENCH_ARGS="--items 10000" pick smaller sizes, BENCH_ARGS="--backend postgresql
# --only query --events 10000000" the query figures at ten million events;
# see docs/performance.md and docs/scaling.md.
bench: $(STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)
	$(BIN)/python -m bench.item_search $(ITEM_BENCH_ARGS)
	$(BIN)/python -m bench.master_data $(MASTER_DATA_BENCH_ARGS)
	$(BIN)/python -m bench.codes $(CODE_BENCH_ARGS)
	$(BIN)/python -m bench.flows $(FLOW_BENCH_ARGS)
	$(BIN)/python -m bench.validation $(VALIDATION_BENCH_ARGS)
	$(BIN)/python -m bench.trace $(TRACE_BENCH_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache $(SDK_CHECK)/node_modules \
		$(OIDC_PROVIDER)/node_modules
