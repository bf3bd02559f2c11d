# Research Mind — `make run` serves the app with a demo session, `make test`
# runs the whole suite. Both install what they need, idempotently.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

# A Python >= 3.12, found explicitly (the machine's default python3 may be older).
PYTHON ?= $(shell for c in python3.13 python3.12 \
	$$HOME/.pyenv/versions/3.13*/bin/python3.13 /root/.pyenv/versions/3.13*/bin/python3.13 \
	$$HOME/.pyenv/versions/3.12*/bin/python3.12 /usr/local/bin/python3.13 /usr/bin/python3.13 python3; do \
	p=$$(command -v $$c 2>/dev/null) || continue; \
	$$p -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null && { echo $$p; break; }; \
	done)

.PHONY: help install install-test build-tools tools browser documents bench-documents bench-ripgrep services run test test-fast test-postgres lint format check-python clean mutation

help:
	@echo "make run    install, migrate, load the demo session, serve http://$(HOST):$(PORT)"
	@echo "make test   install test dependencies and run the whole suite"
	@echo "make lint   ruff"
	@echo "make mutation [PACKAGE=core/citations/parsing]   mutation testing of the pure packages (slow; not in make test)"

check-python:
	@if [ -z "$(PYTHON)" ]; then echo "Research Mind needs Python 3.12 or newer; none was found (tried python3.13, python3.12, pyenv)." >&2; exit 1; fi

$(VENV)/.created: | check-python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
	@touch $@

$(VENV)/.installed: requirements.txt $(VENV)/.created
	$(PY) -m pip install --quiet -r requirements.txt
	@touch $@

$(VENV)/.installed-test: requirements.txt requirements-test.txt $(VENV)/.installed | build-tools
	$(PY) -m pip install --quiet -r requirements-test.txt
	@touch $@

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

# The real Claude Code and claude-mpm CLIs, installed under .tools/ (not global).
tools:
	@PYTHON=$(PYTHON) bash tools/install-cli.sh

# CMake and a C++ compiler: llama-cpp-python (requirements-test.txt, the real model server of the
# OpenAI-compatible engine's slow tests) builds from source; pip caches the wheel it builds (skipped when present).
build-tools:
	@command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 || { \
		echo "Installing Debian's cmake and g++ to build llama-cpp-python…"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++ >/dev/null) \
		|| { echo "Could not install cmake and g++ (needs root and Debian's package registry)." >&2; exit 1; }; }

# Debian's chromium for the browser suite (skipped when present).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Installing Debian's chromium for the browser tests…"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
		|| { echo "Could not install chromium (needs root and Debian's package registry)." >&2; exit 1; }; }

# Real PDFs (and libffi's HTML manual, rsync's manual pages for the held-out set of
# bench.quality.builtin_engine --set rsync, wget/tar/ssh_config/grep's for --set manpages-more, logrotate/gzip/xargs/apt's for --set configs, mosquitto/journald's for --set servers, shadow/login.defs/chage/useradd's for --set accounts, less's for --set pager) from Debian's documentation packages for the documents tests, and
# the OCR of scanned pages: tesseract (the app reads scans with it) and
# poppler's pdftoppm + img2pdf (the tests make scans of real pages). Skipped
# when present; the PDFs are reinstalled when a docs-excluding image dropped them.
DOCUMENT_PDFS := libtasn1-doc:/usr/share/doc/libtasn1-doc/libtasn1.pdf \
	zlib1g-dev:/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz \
	shared-mime-info:/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf \
	libffi-dev:/usr/share/doc/libffi8/html/index.html \
	rsync:/usr/share/man/man5/rsyncd.conf.5.gz \
	wget:/usr/share/man/man1/wget.1.gz openssh-client:/usr/share/man/man5/ssh_config.5.gz \
	tar:/usr/share/man/man1/tar.1.gz grep:/usr/share/man/man1/grep.1.gz \
	logrotate:/usr/share/man/man8/logrotate.8.gz gzip:/usr/share/man/man1/gzip.1.gz \
	findutils:/usr/share/man/man1/xargs.1.gz apt:/usr/share/doc/apt/NEWS.Debian.gz \
	mosquitto:/usr/share/man/man5/mosquitto.conf.5.gz systemd:/usr/share/man/man5/journald.conf.5.gz \
	passwd:/usr/share/man/man5/shadow.5.gz login:/usr/share/man/man5/login.defs.5.gz \
	less:/usr/share/doc/less/NEWS.gz
DOCUMENT_TOOLS := tesseract-ocr:/usr/bin/tesseract \
	tesseract-ocr-eng:/usr/share/tesseract-ocr/*/tessdata/eng.traineddata \
	poppler-utils:/usr/bin/pdftoppm img2pdf:/usr/bin/img2pdf \
	man-db:/usr/bin/man bsdextrautils:/usr/bin/col
documents:
	@missing=""; for entry in $(DOCUMENT_PDFS); do \
		test -e "$${entry#*:}" || missing="$$missing $${entry%%:*}"; done; \
	tools=""; for entry in $(DOCUMENT_TOOLS); do \
		compgen -G "$${entry#*:}" >/dev/null || tools="$$tools $${entry%%:*}"; done; \
	if [ -n "$$missing$$tools" ]; then \
		echo "Installing Debian's$$missing$$tools for the documents tests…"; \
		(apt-get update -qq \
			&& { [ -z "$$missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall $$missing >/dev/null; } \
			&& { [ -z "$$tools" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$tools >/dev/null; }) \
		|| { echo "Could not install$$missing$$tools (needs root and Debian's package registry)." >&2; exit 1; }; fi

# More real PDFs for the document benches only (bench/perf/pdf_corpus.py: 50 MB and more); not for `make test`.
BENCH_PDF_PACKAGES := r-doc-pdf octave-doc gnuplot-doc asymptote-doc texlive-base texlive-latex-recommended valgrind
bench-documents: documents
	@test -e /usr/share/doc/octave/octave.pdf -a -e /usr/share/R/doc/manual/refman.pdf \
		-a -e /usr/share/doc/texlive-doc/latex/koma-script/scrguide-en.pdf || { \
		echo "Installing Debian's documentation PDFs for the benches…"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_PDF_PACKAGES) >/dev/null) \
		|| { echo "Could not install $(BENCH_PDF_PACKAGES) (needs root and Debian's package registry)." >&2; exit 1; }; }

# ripgrep, the contender of the verification benches (bench/perf/verify_real.py); not for `make test`.
bench-ripgrep:
	@command -v rg >/dev/null 2>&1 || { \
		echo "Installing Debian's ripgrep for the benches…"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep >/dev/null) \
		|| { echo "Could not install ripgrep (needs root and Debian's package registry)." >&2; exit 1; }; }

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo --url http://$(HOST):$(PORT)
	@echo ""
	@echo "Serving Research Mind on http://$(HOST):$(PORT)/ (Ctrl-C stops it)."
	$(PY) manage.py runserver $(HOST):$(PORT)

# PostgreSQL and Redis on loopback for the scale-out tests (quiet when already up).
services:
	@bash tools/services.sh

test: install-test tools browser documents services
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: install-test documents
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

test-postgres: install-test tools browser documents
	@# Connections kept open (CONN_MAX_AGE) would outlive the suite and block dropping its database.
	CONN_MAX_AGE=0 DATABASE_URL=postgres://postgres@127.0.0.1:5432/test $(PY) -m pytest $(PYTEST_ARGS)

lint: install-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install-test
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Mutation testing (mutmut, pinned in requirements-mutation.txt) of the pure packages listed in
# tools/mutation.toml, each against only its own tests, in a copy under artifacts/mutation/.
# Not part of `make test` or CI: one package takes minutes. PACKAGE= picks one; default: each in turn.
PACKAGE ?=
$(VENV)/.installed-mutation: requirements-mutation.txt $(VENV)/.installed-test
	$(PY) -m pip install --quiet -r requirements-mutation.txt
	@touch $@

mutation: $(VENV)/.installed-mutation
	$(PY) tools/mutation.py $(PACKAGE)

clean:
	rm -rf $(VENV) .tools data artifacts
