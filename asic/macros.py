# SPDX-License-Identifier: Apache-2.0
"""SRAM macros for the ASIC estimate: which memories become macros, their area, timing and
power, and the Liberty file that carries them to Yosys and OpenSTA.

No SRAM compiler runs offline here, so every macro is a black box whose figures come from
the stated model below (:data:`MODEL`), not from a generated layout. The model:

* **Area.** Bits divided by the bit density OpenRAM publishes for its FreePDK45 single-port
  (1rw, 6T) SRAMs, 0.826 Mb/mm^2 (OpenRAM documentation, "Results", table "Comparison with
  Fabricated SRAMs"; the same table lists a fabricated 45 nm SRAM at 0.33 Mb/mm^2). A
  memory with more ports pays a bit-cell factor: 2 for one read and one write port (a
  two-port 8T-class cell; OpenRAM's 10T isolated-read cell is 2.4x its 6T in its SCMOS
  table), 3 for two read ports and one write port. The density is of large arrays, so
  narrow and shallow macros (512 x 1) are counted optimistically.
* **Timing** (clock to read data, setup and hold of every input to the clock): an assumed
  figure of the order a compiled 45 nm single-bank SRAM of 16 to 128 kbit reaches and CACTI
  reports for arrays of that size at 45 nm (a few hundred picoseconds). Read data leave the
  macro a fixed ``access_ns`` after the clock edge, independent of load; inputs need
  ``setup_ns`` before it.
* **Power**: read energy per access ``read_pj_base + read_pj_per_bit * width``, write
  energy per access likewise, leakage ``leak_nw_per_bit`` per stored bit (assumed,
  CACTI-class orders of magnitude at 45 nm, 1.1 V).

Every figure is an estimate to be replaced by a compiler's datasheet; the flow's report
states the model it used.
"""

from __future__ import annotations

import dataclasses

__all__ = ["MODEL", "MacroModel", "MacroSpec", "macro_area_um2",
           "macro_power_mw", "liberty_text"]


@dataclasses.dataclass(frozen=True)
class MacroModel:
    """The assumed SRAM figures (see the module docstring for their source)."""

    density_mb_per_mm2: float = 0.826      # OpenRAM FreePDK45, single-port (1rw)
    port_factor: tuple = ((1, 1, 2.0), (2, 1, 3.0))   # (read ports, write ports, factor)
    access_ns: float = 0.45                # clock to read data, up to 512 rows
    access_ns_2048: float = 0.55           # clock to read data, 2048 rows
    setup_ns: float = 0.10
    hold_ns: float = 0.03
    pin_cap_ff: float = 2.0                # every input pin
    clk_cap_ff: float = 10.0
    output_slew_ns: float = 0.05
    read_pj_base: float = 1.0
    read_pj_per_bit: float = 0.05
    write_pj_base: float = 1.0
    write_pj_per_bit: float = 0.06
    leak_nw_per_bit: float = 1.0

    def factor(self, reads: int, writes: int) -> float:
        for r, w, f in self.port_factor:
            if (r, w) == (reads, writes):
                return f
        raise ValueError(f"no bit-cell factor for {reads} read and {writes} write ports")

    def access(self, depth: int) -> float:
        return self.access_ns_2048 if depth > 512 else self.access_ns

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["port_factor"] = [{"reads": r, "writes": w, "factor": f}
                            for r, w, f in self.port_factor]
        return d


MODEL = MacroModel()


@dataclasses.dataclass(frozen=True)
class MacroSpec:
    """One macro shape: ``depth`` words of ``width`` bits, ``reads`` synchronous read
    ports and ``writes`` write ports (per-bit write mask), one clock."""

    depth: int
    width: int
    reads: int
    writes: int

    def __post_init__(self):
        for name in ("depth", "width", "reads", "writes"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < (0 if name == "writes" else 1):
                raise ValueError(f"MacroSpec.{name} must be a positive integer, not {value!r}")

    @property
    def name(self) -> str:
        return f"sram_{self.depth}x{self.width}_{self.reads}r{self.writes}w"

    @property
    def abits(self) -> int:
        return max(1, (self.depth - 1).bit_length())

    @property
    def bits(self) -> int:
        return self.depth * self.width

    def pins(self) -> list[tuple[str, str]]:
        """(pin name, "input"/"output") for every pin, bit-blasted (``R0_A_3``)."""
        pins = [("CLK", "input")]
        for i in range(self.reads):
            pins.append((f"R{i}_CE", "input"))
            pins += [(f"R{i}_A_{k}", "input") for k in range(self.abits)]
            pins += [(f"R{i}_Q_{k}", "output") for k in range(self.width)]
        for j in range(self.writes):
            pins += [(f"W{j}_A_{k}", "input") for k in range(self.abits)]
            pins += [(f"W{j}_D_{k}", "input") for k in range(self.width)]
            pins += [(f"W{j}_M_{k}", "input") for k in range(self.width)]
        return pins


def macro_area_um2(spec: MacroSpec, model: MacroModel = MODEL) -> float:
    """Area of one macro (um^2) from the bit density and the port factor."""
    return spec.bits / (model.density_mb_per_mm2 * 1e6) * 1e6 * model.factor(spec.reads,
                                                                           spec.writes)


def macro_power_mw(spec: MacroSpec, freq_mhz: float, read_rate: float, write_rate: float,
                   model: MacroModel = MODEL) -> dict:
    """Power of one macro (mW): every read port accessed ``read_rate`` of the cycles and
    every write port ``write_rate`` of them, at ``freq_mhz``."""
    e_read = model.read_pj_base + model.read_pj_per_bit * spec.width
    e_write = model.write_pj_base + model.write_pj_per_bit * spec.width
    dynamic = freq_mhz * 1e6 * (spec.reads * read_rate * e_read +
                                spec.writes * write_rate * e_write) * 1e-12 * 1e3
    leakage = spec.bits * model.leak_nw_per_bit * 1e-6
    return {"dynamic_mw": dynamic, "leakage_mw": leakage, "total_mw": dynamic + leakage}


def _scalar(name: str, value: float) -> str:
    return f'{name} (scalar) {{ values ("{value:.4f}"); }}'


def liberty_text(specs, model: MacroModel = MODEL, name: str = "kvasu_sram_macros") -> str:
    """A Liberty library with one black-box cell per macro shape: area, pin capacitances,
    clock-to-output arcs on the read data and setup/hold checks on every other input."""
    out = [f"library ({name}) {{",
           "  delay_model : table_lookup;",
           '  time_unit : "1ns";', '  voltage_unit : "1V";', '  current_unit : "1mA";',
           '  leakage_power_unit : "1nW";', '  pulling_resistance_unit : "1kohm";',
           "  capacitive_load_unit (1,ff);",
           "  nom_process : 1.0;", "  nom_voltage : 1.1;", "  nom_temperature : 25.0;",
           "  slew_lower_threshold_pct_rise : 30.0;", "  slew_upper_threshold_pct_rise : 70.0;",
           "  slew_lower_threshold_pct_fall : 30.0;", "  slew_upper_threshold_pct_fall : 70.0;",
           "  input_threshold_pct_rise : 50.0;", "  input_threshold_pct_fall : 50.0;",
           "  output_threshold_pct_rise : 50.0;", "  output_threshold_pct_fall : 50.0;"]
    for spec in sorted(set(specs), key=lambda s: s.name):
        out += [f"  cell ({spec.name}) {{",
                f"    area : {macro_area_um2(spec, model):.3f};",
                "    dont_touch : true;", "    dont_use : true;",
                f"    cell_leakage_power : {spec.bits * model.leak_nw_per_bit:.3f};"]
        for pin, direction in spec.pins():
            if pin == "CLK":
                out.append(f"    pin (CLK) {{ direction : input; clock : true; "
                           f"capacitance : {model.clk_cap_ff}; }}")
            elif direction == "input":
                checks = [f"      timing () {{ related_pin : \"CLK\"; timing_type : {kind}; "
                          f"{_scalar('rise_constraint', t)} {_scalar('fall_constraint', t)} }}"
                          for kind, t in (("setup_rising", model.setup_ns),
                                          ("hold_rising", model.hold_ns))]
                out += [f"    pin ({pin}) {{ direction : input; "
                        f"capacitance : {model.pin_cap_ff};", *checks, "    }"]
            else:
                t = model.access(spec.depth)
                out += [f"    pin ({pin}) {{ direction : output;",
                        "      timing () { related_pin : \"CLK\"; timing_type : rising_edge; "
                        f"{_scalar('cell_rise', t)} {_scalar('cell_fall', t)} "
                        f"{_scalar('rise_transition', model.output_slew_ns)} "
                        f"{_scalar('fall_transition', model.output_slew_ns)} }}",
                        "    }"]
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
