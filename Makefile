# make run   : venv + package + default PyTorch checkout + index + `tg-query kernels-for add.out`
# make test  : venv + package + real PyTorch sources for the integration tests + the whole suite
# make bench : the benchmark on the real 2.6.0 tree (prints figures), with the modules byte-compiled first
# make compile: byte-compile the package's modules again after editing them (`make venv` does it once)

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CACHE  := $(or $(TILEGYM_SKILL_CACHE_DIR),$(HOME)/.cache/tilegym)
CHECKOUT     := $(CACHE)/pytorch-source
TEST_SOURCES := $(CACHE)/test-sources

export TG_TEST_PYTORCH_2_6_0  ?= $(TEST_SOURCES)/pytorch-2.6.0
export TG_TEST_PYTORCH_1_13_1 ?= $(TEST_SOURCES)/pytorch-1.13.1
export TG_TEST_TORCH_2_13_0   ?= $(TEST_SOURCES)/torch-2.13.0-yaml

.PHONY: run test sources venv compile bench clean

# The install is editable; its modules are byte-compiled here as a wheel install compiles them, since a
# process that may not write bytecode (PYTHONDONTWRITEBYTECODE) compiles every stale module at every start.
PACKAGES := indexer queries schema

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -e '.[test,datasette]'
	$(BIN)/python -m compileall -q $(PACKAGES)
	touch $@

venv: $(BIN)/.installed

compile: venv
	$(BIN)/python -m compileall -q $(PACKAGES)

run: venv
	$(BIN)/python -m tg_index.indexer.sources checkout $(CHECKOUT)
	$(BIN)/tg-index $(CHECKOUT)
	$(BIN)/tg-query kernels-for add.out

sources: venv
	$(BIN)/python -m tg_index.indexer.sources debian 2.6.0 $(TG_TEST_PYTORCH_2_6_0)
	$(BIN)/python -m tg_index.indexer.sources debian 1.13.1 $(TG_TEST_PYTORCH_1_13_1)
	$(BIN)/python -m tg_index.indexer.sources wheel 2.13.0 $(TG_TEST_TORCH_2_13_0)

test: venv sources
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build dist *.egg-info

bench: compile sources
	$(BIN)/python tests/bench.py $(TG_TEST_PYTORCH_2_6_0)
	$(BIN)/python tests/bench_context.py $(TG_TEST_PYTORCH_2_6_0)
