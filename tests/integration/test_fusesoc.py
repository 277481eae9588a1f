# SPDX-License-Identifier: Apache-2.0
"""The FuseSoC cores (kv_asu.core and one core per other build) parse, lint with Verilator
-Wall, simulate in Icarus, and give a core that depends on them their build.

FuseSoC comes from PyPI (the `test` extra); the cores are found with --cores-root on a
folder that holds only the cores and what they name (a copy of them), so nothing else in
the checkout or the venv is scanned.
"""

import os
import re
import shutil
import subprocess

import pytest

import regmap

from .conftest import BIN, DIST, ROOT, tool

CORE = ROOT / "kv_asu.core"
VLNV = "kvasu:ip:kv_asu"
# the core a core of yours depends on for each shipped build (FuseSoC gives a dependency's
# `default` target only, so each build is a core of its own)
BUILD_CORES = {"default": (CORE, VLNV),
               "predictor": (ROOT / "kv_asu_predictor.core", "kvasu:ip:kv_asu_predictor"),
               "ice40": (ROOT / "kv_asu_ice40.core", "kvasu:ip:kv_asu_ice40")}


@pytest.fixture(scope="module")
def cores_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("cores")
    for core, _ in BUILD_CORES.values():
        shutil.copy2(core, root / core.name)
    shutil.copytree(ROOT / "dist", root / "dist")
    return root


def fusesoc(cores_root, *args, cwd):
    # the tools FuseSoC's makefiles call (verilator) are in the venv's bin
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    return subprocess.run([tool("fusesoc"), "--cores-root", str(cores_root), *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_core_info_lists_the_targets_and_the_release(cores_root, tmp_path):
    proc = fusesoc(cores_root, "core-info", VLNV, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"{VLNV}:{regmap.RELEASE}" in proc.stdout
    for target in ("default", "predictor", "ice40", "lint", "lint_predictor", "lint_ice40",
                   "sim", "sim_predictor", "sim_ice40"):
        assert re.search(rf"^{target}\s*:", proc.stdout, re.M), target


@pytest.mark.parametrize("build", sorted(BUILD_CORES))
def test_core_names_only_existing_files(build):
    names = re.findall(r"files: \[([^\]]*)\]", BUILD_CORES[build][0].read_text())
    # a file's entry may carry attributes: "dist/kv_asu_regs.vh: {is_include_file: true}"
    files = [f.split(":")[0].strip() for group in names for f in group.split(",")]
    assert files and all((ROOT / f).is_file() for f in files), files


def _wrapper_defaults():
    text = (DIST / "kv_asu_wrapper.v").read_text()
    return {k: int(v) for k, v in re.findall(r"parameter (\w+)\s*=\s*(\d+)", text)}


# An integrator's toplevel: the wrapper instantiated with the build's widths, as
# docs/integration.md ("Instantiating the wrapper") shows, the register include used.
MY_SOC = """`include "kv_asu_regs.vh"
module my_soc (
    input  wire clk, input wire rst,
    input  wire req_valid, input wire [1:0] req_op, input wire [{a}-1:0] req_addr,
    output wire req_ready, output wire rsp_valid, output wire [{t}-1:0] rsp_victim_tag,
    output wire [{c}-1:0] rsp_count, output wire [{s}-1:0] rsp_slot, output wire [31:0] rdata
);
    wire awready, wready, bvalid, arready, rvalid;
    wire [1:0] bresp, rresp, rsp_op, rsp_tlevel_before, rsp_tlevel;
    wire rsp_present, rsp_tracked, rsp_hit, rsp_victim_valid;
    kv_asu_wrapper #(
        .ADDR_WIDTH({a}), .COUNT_WIDTH({c}), .SLOT_WIDTH({s}), .TAG_WIDTH({t})
    ) u_kv_asu (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(12'd0), .s_axil_awprot(3'd0), .s_axil_awvalid(1'b0),
        .s_axil_awready(awready), .s_axil_wdata(32'd0), .s_axil_wstrb(4'd0),
        .s_axil_wvalid(1'b0), .s_axil_wready(wready), .s_axil_bresp(bresp),
        .s_axil_bvalid(bvalid), .s_axil_bready(1'b1), .s_axil_araddr(`KVASU_REG_ID),
        .s_axil_arprot(3'd0), .s_axil_arvalid(1'b1), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid),
        .s_axil_rready(1'b1),
        .req_valid(req_valid), .req_ready(req_ready), .req_op(req_op),
        .req_min_tlevel(2'd0), .req_addr(req_addr),
        .rsp_valid(rsp_valid), .rsp_ready(1'b1), .rsp_op(rsp_op), .rsp_present(rsp_present),
        .rsp_tlevel_before(rsp_tlevel_before), .rsp_tracked(rsp_tracked),
        .rsp_tlevel(rsp_tlevel), .rsp_hit(rsp_hit), .rsp_victim_valid(rsp_victim_valid),
        .rsp_count(rsp_count), .rsp_slot(rsp_slot), .rsp_victim_tag(rsp_victim_tag)
    );
endmodule
"""


@pytest.mark.parametrize("build", sorted(BUILD_CORES))
def test_a_core_that_depends_on_a_build_core_gets_that_build(cores_root, tmp_path, build):
    # a core of yours: its own toplevel (the wrapper inside), linted by Verilator. It gets
    # that build's kv_asu.v, the register include and the lint waivers, and no parameter
    # of the wrapper lands on its toplevel (Verilator refuses -G of a parameter the top
    # does not have; Icarus would set a parameter of the same name).
    import yaml          # FuseSoC's own dependency
    from tools import dist
    widths = dist.BUILDS[build].wrapper_params()
    user = tmp_path / "user"
    user.mkdir()
    (user / "my_soc.v").write_text(MY_SOC.format(
        a=widths["ADDR_WIDTH"], c=widths["COUNT_WIDTH"], s=widths["SLOT_WIDTH"],
        t=widths["TAG_WIDTH"]))
    (user / "user.core").write_text(f"""CAPI=2:
name: user:test:soc:0
filesets:
  rtl:
    files: [my_soc.v]
    file_type: verilogSource
    depend: [{BUILD_CORES[build][1]}]
targets:
  default:
    default_tool: verilator
    filesets: [rtl]
    toplevel: my_soc
    tools:
      verilator:
        mode: lint-only
""")
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    proc = subprocess.run([tool("fusesoc"), "--cores-root", str(cores_root), "--cores-root",
                           str(user), "run", "--build-root", str(tmp_path / "b"),
                           "user:test:soc"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    edam = yaml.safe_load(next((tmp_path / "b").rglob("*.eda.yml")).read_text())
    cores = [f["name"] for f in edam["files"] if f["name"].endswith("/kv_asu.v")]
    assert len(cores) == 1 and cores[0].endswith(f"/dist/{build}/kv_asu.v"), cores
    assert not set(edam.get("parameters") or {}) & set(widths), edam.get("parameters")


@pytest.mark.parametrize("build", sorted(BUILD_CORES))
def test_a_build_core_as_the_top_core_sets_the_wrapper_s_widths(cores_root, tmp_path, build):
    # `fusesoc run kvasu:ip:kv_asu_ice40`: the toplevel is the wrapper, its widths the build's
    import yaml
    from tools import dist
    proc = fusesoc(cores_root, "run", "--setup", "--tool", "icarus", "--build-root",
                   str(tmp_path / "b"), BUILD_CORES[build][1], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    edam = yaml.safe_load(next((tmp_path / "b").rglob("*.eda.yml")).read_text())
    assert edam["toplevel"] == "kv_asu_wrapper"
    params = edam.get("parameters") or {}
    widths = {k: params.get(k, {}).get("default", v) for k, v in _wrapper_defaults().items()}
    assert widths == dist.BUILDS[build].wrapper_params()


# (the other build of each is linted and simulated directly in test_dist.py)
@pytest.mark.parametrize("target", ["lint"])
def test_lint_target_passes(cores_root, tmp_path, target):
    proc = fusesoc(cores_root, "run", "--build-root", str(tmp_path / "b"), "--target", target,
                   VLNV, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    config = next((tmp_path / "b").rglob("config.mk")).read_text()
    assert "-Wall" in config


@pytest.mark.parametrize("target", ["sim_ice40"])
def test_sim_target_passes(cores_root, tmp_path, target):
    proc = fusesoc(cores_root, "run", "--build-root", str(tmp_path / "b"), "--target", target,
                   VLNV, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "kv_asu_wrapper_tb: PASS" in proc.stdout and "FAIL" not in proc.stdout


TINY = {"ENTRIES": 8, "PROBE": 2, "ADDR_WIDTH": 20, "LINE_SHIFT": 4, "TAG_WIDTH": 10,
        "COUNT_WIDTH": 2, "TS_WIDTH": 4, "TICK_SHIFT": 0}


def test_generator_core_builds_custom_parameters_that_lint_clean(tmp_path):
    # the generator's core with what its script needs (hdl/, regmap/, tools/, the wrapper)
    root = tmp_path / "kv"
    root.mkdir()
    shutil.copy2(ROOT / "kv_asu_gen.core", root)
    for name in ("hdl", "regmap", "dist", "tools", "fpga"):
        shutil.copytree(ROOT / name, root / name,
                        ignore=shutil.ignore_patterns("__pycache__", "default", "ice40"))
    user = tmp_path / "user"
    user.mkdir()
    params = ", ".join(f"{k}: {v}" for k, v in TINY.items())
    (user / "user.core").write_text(f"""CAPI=2:
name: user:test:tiny_asu:0
filesets:
  deps:
    depend: [kvasu:ip:kv_asu_gen]
generate:
  tiny:
    generator: kv_asu_gen
    parameters: {{{params}}}
targets:
  lint:
    default_tool: verilator
    filesets: [deps]
    generate: [tiny]
    toplevel: kv_asu_wrapper
    tools:
      verilator:
        mode: lint-only
        verilator_options: [-Wall]
""")
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    proc = subprocess.run([tool("fusesoc"), "--cores-root", str(root), "--cores-root",
                           str(user), "run", "--build-root", str(tmp_path / "b"), "--target",
                           "lint", "user:test:tiny_asu"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    generated = next((tmp_path / "b").rglob("kv_asu.v")).read_text()
    assert "module kv_asu(" in generated
    assert "input [23:0] req__payload" in generated        # 2 + 2 + ADDR_WIDTH 20
    # its header, as the shipped files': the licence, the parameters, the latency
    head = generated.splitlines()[:7]
    assert head[0] == "// SPDX-License-Identifier: Apache-2.0", head
    assert any(line.startswith("// Request-to-response latency: ") for line in head), head
    # the widths are the generated wrapper's defaults, not FuseSoC parameters (which would
    # land on the toplevel of a design that depends on the generated core)
    wrapper = next((tmp_path / "b").rglob("kv_asu_wrapper.v")).read_text()
    defaults = {k: int(v) for k, v in re.findall(r"parameter (\w+)\s*=\s*(\d+)", wrapper)}
    assert defaults == {"ADDR_WIDTH": 20, "COUNT_WIDTH": 2, "SLOT_WIDTH": 3, "TAG_WIDTH": 10}
    command = next((tmp_path / "b").rglob("*.vc")).read_text()
    assert "-G" not in command, command
    assert next((tmp_path / "b").rglob("kv_asu_regs.vh")).is_file()
