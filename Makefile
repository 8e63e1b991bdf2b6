# The two commands of the README: `make lab` and `make test`.
# Both create .venv on first use and re-install only when pyproject.toml or
# constraints.txt change (the stamp file below records the last install).
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.looplab-installed
# JupyterLab refuses to start as root unless told to (containers, CI).
ROOTFLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab test quick slow browser lint typecheck pytest notebooks exercises translations docs lite bench conformance autograder clean

# JupyterLab opens on the lesson map (notebooks/README.md, which links both editions),
# shown as a page. Its settings are tools/lab/overrides.d/looplab.json (Markdown files open
# as pages, widget state saved with the notebook, no news popup), the file the package
# installs into the environment for a JupyterLab started any other way. Kernels talk to
# the server over TCP encrypted with CurveZMQ keys the server hands each kernel (ipykernel
# declares it can; Unix sockets fail on a path over 107 characters), when pyzmq has CurveZMQ
# (its wheels do). PORT=8899 picks the port (default: 8888, or the next free one); LAB_ARGS
# passes more options, e.g. LAB_ARGS=--no-browser.
PORT     ?=
LAB_ARGS ?=
lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=notebooks $(ROOTFLAG) \
		--LabServerApp.app_settings_dir=tools/lab --LabApp.default_url=/lab/tree/README.md \
		--KernelManager.transport_encryption=$$($(BIN)/python -c 'import zmq; print("auto" if zmq.has("curve") else "disabled")') \
		$(if $(PORT),--ServerApp.port=$(PORT) --ServerApp.port_retries=0) $(LAB_ARGS)

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks tools docs

typecheck: $(STAMP)
	$(BIN)/mypy

# The tests run on every core (pytest-xdist), handed out one at a time; a lesson's cells
# stay together in one kernel (tests/conftest.py says how).
XDIST := -n auto --dist load
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval-sanitize.cfg \
	--nbval-cell-timeout 120

# Every test but the slow and the browser ones, and every lesson re-run under nbval and
# compared with its stored outputs.
pytest: $(STAMP)
	$(BIN)/python -m pytest $(XDIST) $(NBVAL) -m "not slow and not browser" tests notebooks

# The tests marked slow, which take seconds each (each says so in its own file,
# `@pytest.mark.slow` or `pytestmark = pytest.mark.slow`): the soak, the hostile, cheating and tricking submissions
# to the grader, every lesson of both editions graded as a submission, the long property
# tests. Much of their time is spent waiting on purpose (for a timeout, a kill), which one
# worker more than there are cores fills with other work.
SLOW_WORKERS ?= $(shell $(PY) -c 'import os; print((os.cpu_count() or 1) + 1)')
slow: $(STAMP)
	$(BIN)/python -m pytest -n $(SLOW_WORKERS) --dist load -m "slow and not browser" tests

# The tests in a real browser (tests/browser): JupyterLab, the docs site and the browser
# edition in headless Chromium, which they need (Debian: apt install chromium). The browser
# edition's tests need `make lite` (or `make docs`) first and skip without it. One worker per
# core: Chromium keeps a core busy, there is no waiting for another worker to fill.
browser: $(STAMP)
	@command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || { \
	  echo "make browser needs Chromium (Debian/Ubuntu: apt install chromium); test tools never download a browser"; \
	  exit 1; }
	$(BIN)/python -m pytest $(XDIST) tests/browser

# While you work: ruff, mypy and the unit tests, without the lessons (nbval), the slow tests
# and the browser tests. `make test` adds the lessons; `make slow` and `make browser` run
# the rest.
quick: lint typecheck
	$(BIN)/python -m pytest $(XDIST) -m "not slow and not browser" tests

# Re-execute every lesson in place (offline, no key) so the stored outputs nbval compares
# against are current. Run it after changing a lesson or anything a lesson prints.
notebooks: $(STAMP)
	$(BIN)/python tools/run_notebooks.py

# Regenerate the student copies notebooks/exercises/NN_*.ipynb from the lessons' solution
# markers (`### BEGIN SOLUTION` / `### END SOLUTION`). A copy a student has changed is never
# overwritten: it is left as it is, and FORCE=1 moves it to exercises/saved/ before writing
# the new one. `--check` (in `make test`) reports stale copies, never a student's work.
exercises: $(STAMP)
	$(BIN)/python tools/make_exercises.py $(if $(FORCE),--force)

# Messages looplab says to a learner (every `_()` in src/looplab) -> the catalog template,
# merged into each language's .po (translate the new entries there), compiled to .mo.
# `make test` fails when a message has no translation or a .mo is older than its .po.
LOCALE := src/looplab/locale
translations: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k _ -k N_ -k ngettext:1,2 -k Message -k worded -k Stop:2 --no-location --sort-output \
		--project looplab --copyright-holder "looplab contributors" -o $(LOCALE)/looplab.pot .
	$(BIN)/pybabel update -i $(LOCALE)/looplab.pot -d $(LOCALE) -D looplab --no-fuzzy-matching \
		--ignore-pot-creation-date
	$(BIN)/pybabel compile -d $(LOCALE) -D looplab --statistics

# Send the history-rule probes to the live endpoint you configured (LOOPLAB_LIVE=1, a key,
# optionally LOOPLAB_BASE_URL / LOOPLAB_MODEL) and to the fake; print where they agree and
# record the live answers to $(CASSETTE). Costs a few thousand tokens. Without the live
# switch it says how to show the recorded table offline instead.
CASSETTE ?= conformance.json
conformance: $(STAMP)
	$(BIN)/python tools/conformance.py --save $(CASSETTE)

# The docs site: every lesson as a web page, from the outputs stored in the notebooks
# (nothing is re-run), English and each translation in notebooks/<lang>/ -> build/site/;
# then the browser edition into build/site/lite/ (the docs build replaces all of build/site/
# but lite/, which the browser edition's build replaces).
docs: $(STAMP)
	$(BIN)/python tools/build_docs.py
	$(BIN)/python tools/build_lite.py $(if $(V),--verbose)

# The browser edition (JupyterLite on Pyodide): every lesson of both editions runnable in
# the browser, no install -> build/site/lite/. Downloads (npm, PyPI) are kept in
# build/lite-cache/, so a rebuild needs no network. Quiet but for a failure; V=1 shows each
# command (pip, npm, jupyter lite) and all it prints, in `make docs` too.
lite: $(STAMP)
	$(BIN)/python tools/build_lite.py $(if $(V),--verbose)

# Gradescope's autograder: build/autograder.zip (setup.sh, run_autograder, the points of
# tools/gradescope/points.toml, looplab and its lessons). POINTS=FILE for other points.
POINTS ?= tools/gradescope/points.toml
autograder: $(STAMP)
	$(BIN)/python tools/build_autograder.py --points $(POINTS)

bench: $(STAMP)
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

$(STAMP): pyproject.toml constraints.txt
	@$(PY) -m venv $(VENV) || { \
	  echo "'$(PY) -m venv' failed. On Debian/Ubuntu install python3-venv (apt install python3-venv) and run make again."; \
	  rm -rf $(VENV); exit 1; }
	$(BIN)/python -m pip install -q --upgrade pip
	@# constraints.txt pins what the stored lesson outputs were made with, on Python 3.11;
	@# another Python gets the newest versions pyproject.toml allows for it.
	@if $(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then \
	  echo "$(BIN)/python -m pip install -q -c constraints.txt -e \".[docs,lab,lite,test]\""; \
	  $(BIN)/python -m pip install -q -c constraints.txt -e ".[docs,lab,lite,test]"; \
	else \
	  echo "note: constraints.txt is for Python 3.11; installing the newest allowed versions"; \
	  $(BIN)/python -m pip install -q -e ".[docs,lab,lite,test]"; \
	fi
	@touch $@

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
