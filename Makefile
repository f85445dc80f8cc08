# Two commands do all the set-up on a fresh machine:
#   make run    creates .venv, installs the requirements, starts the app
#   make test   creates .venv, installs the requirements, runs the whole test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint bench check-java browser graphviz jvm-archive clean

# --no-compile: Python compiles each module when it is first imported, not every file of every package
$(STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed (found " + sys.version.split()[0] + ")")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -r requirements.txt
	touch $(STAMP)

check-java:
	@java -version >/dev/null 2>&1 || { echo "Spark needs Java 17 or newer, and no 'java' was found. On Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless"; exit 1; }
	@v=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1); \
	  if [ -z "$$v" ] || [ "$$v" -lt 17 ]; then echo "Spark needs Java 17 or newer (found: $$v). On Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless"; exit 1; fi

run: $(STAMP) check-java graphviz jvm-archive
	$(VENV)/bin/streamlit run app.py

# The class archive of Spark's JVM (once per PySpark and Java; about 30 s): its sessions start in
# about half the time. Without it they start all the same.
jvm-archive: $(STAMP) check-java
	@$(PY) -m executor.spark.jvm_archive

# Debian's Chromium for the browser end-to-end test; where it cannot be installed the test is skipped and says why.
browser:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the browser test"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
	      || echo "could not install chromium: the browser test will be skipped"; \
	  else echo "no /usr/bin/chromium and no root apt-get: the browser test will be skipped"; fi; }

# Debian's Graphviz: the server lays the graph out once with `dot` and the page only shows the SVG
# (pan, zoom). Without it the app lays graphs out in the browser and says what to install.
graphviz:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's graphviz (the graph viewer lays graphs out with dot)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz) >/dev/null 2>&1 \
	      || echo "could not install graphviz: graphs are laid out in the browser instead (apt-get install graphviz)"; \
	  else echo "no dot and no root apt-get: graphs are laid out in the browser instead (apt-get install graphviz)"; fi; }

# The project's lint rules (pyproject.toml): part of make test and make test-fast.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

test: $(STAMP) lint check-java browser graphviz jvm-archive
	$(PY) -m tests.support.suite

test-fast: $(STAMP) lint
	$(PY) -m pytest -m "not slow and not spark"

# The benchmark suite (not part of make test): benchmarks/results/*.json, REPORT.md and docs/benchmarks.png.
# Long (TPC-H at scale 1); `$(PY) -m benchmarks open --quick` runs one of them small.
bench: $(STAMP) check-java browser graphviz jvm-archive
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache
