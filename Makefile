# The two commands that do everything: `make run` and `make test`.
# `make run HOST=0.0.0.0 PORT=8013`: listen on every address (the club's phones on the same Wi-Fi) and on
# port 8013. HOST is only taken from the command line (some shells export HOST as the machine's name).
PYTHON ?= python3
HOST = 127.0.0.1
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint lint-js install warm

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# pip says what it collects and draws a bar for each download, so the first install is never silent.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@echo "Installing the arbiter's packages into $(VENV) (the first time: about 200 MB to download, 760 MB installed)"
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# The compiled move search (engine/kernel.py, Numba) is compiled once per machine (about 30 s of a 2-core
# laptop), then loaded from its cache in well under a second; warming it here spares each test process that
# wait. Prints which search runs, and a line every 5 s while it works. `make run` does not need it: the
# club's stack runs the pure-Python search (docs/operations.md, "First start and memory").
warm: $(VENV)/.installed
	$(BIN)/python -m engine warm

# A checkout's `make run` opts into the development settings (DEBUG on); with HOST beyond loopback the launcher
# turns DEBUG off (arbiter/settings/__init__.py). DJANGO_SETTINGS_MODULE in the environment wins.
run: export DJANGO_SETTINGS_MODULE ?= arbiter.settings.dev
run: $(VENV)/.installed
	$(BIN)/python -m arbiter run --host '$(HOST)' --port '$(PORT)'

# The tests run in TEST_WORKERS processes (pytest-xdist), 2 by default: each has its own test database,
# cache keys and task queue. TEST_WORKERS=0 runs them in this process.
TEST_WORKERS ?= 2

test: warm
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(BIN)/ruff check .

# The pages' JavaScript (static/js): ESLint from package-lock.json. Needs Node.js and npm; `make test` does not.
lint-js: node_modules/.package-lock.json
	npx --no-install eslint static/js eslint.config.js

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
