# Two commands do all the set-up on a fresh machine:
#   make run    creates .venv, installs the requirements, starts the app
#   make test   creates .venv, installs the requirements, runs the whole test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-fast bench check-java clean

$(STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed (found " + sys.version.split()[0] + ")")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

check-java:
	@java -version >/dev/null 2>&1 || { echo "Spark needs Java 17 or newer, and no 'java' was found. On Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless"; exit 1; }
	@v=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1); \
	  if [ -z "$$v" ] || [ "$$v" -lt 17 ]; then echo "Spark needs Java 17 or newer (found: $$v). On Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless"; exit 1; fi

run: $(STAMP) check-java
	$(VENV)/bin/streamlit run app.py

test: $(STAMP) check-java
	$(PY) -m pytest

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow and not spark"

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache
