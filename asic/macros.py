# SPDX-License-Identifier: Apache-2.0
"""SRAM macros for the ASIC estimate: which memories become macros, their area, timing and
power, and the Liberty file that carries them to Yosys and OpenSTA.

No SRAM compiler runs offline here, so every macro is a black box whose figures come from
the stated model below (:data:`MODEL`), not from a generated layout. Where a figure comes
from measured data, the data are OpenRAM's own FreePDK45 macro library ("OpenRAM's
library" below): the characterised single-port (1rw, 6T) SRAMs in ``lib/freepdk45/lib/``
of github.com/VLSIDA/OpenRAM at commit bf7d846e, each laid out, DRC-checked with Calibre
and characterised by simulation (Synopsys XA) at TT, 1.0 V, 25 C (``lib/freepdk45/*.log``).
The model:

* **Area.** ``area_um2_per_bit * bits + area_um2_per_word * depth + area_um2_per_data_bit
  * width + area_um2_fixed``: a least-squares fit of the areas of the library's six
  one-bank macros of 256 to 1024 words of 8 to 128 bits (256 x 8, 256 x 32, 512 x 32,
  1024 x 32, 1024 x 64, 1024 x 128: 4 499 to 146 603 um^2; the fit is within 1 % of each).
  The per-bit term is the array, the per-word term the row decoder and word-line drivers,
  the per-data-bit term the column periphery (sense amplifier, write driver, data
  flip-flops: 4 columns a bit at the library's 4 words a row). Outside those sizes the fit
  extrapolates: the library's one 2048-word macro (2048 x 32, 116 044 um^2) is 1.42 times
  the fit, so the 2048-word macros here are counted low; and a newer OpenRAM's 16 x 512
  FreePDK45 macro is 348 716 um^2 (github.com/VLSIDA/OpenRAM/issues/184), 7.3 times the
  fit. A memory with more ports pays a factor on the whole macro (an assumption): 2 for one
  read and one write port (a two-port 8T-class cell; OpenRAM's 10T isolated-read cell is
  2.4 times its 6T in its SCMOS layouts, OpenRAM documentation, "Results"), 3 for two read
  ports and one write port.
* **Leakage**: ``leak_nw_per_bit`` per stored bit times the port factor, the
  least-squares figure of the library's seven one-bank macros (4.3 to 5.5 nW a bit
  each, periphery included, at 1.0 V: a lower bound at the 1.1 V of the standard cells).
* **Timing** (clock to read data, setup and hold of every input to the clock): assumed,
  for a compiled single-cycle macro that launches its read data on the rising edge;
  nothing cited. OpenRAM's library is not such a macro: it reads in the second half of the
  cycle; its 32-bit macros of 256 to 2048 words have their data 1.12 to 1.22 ns after the
  falling clock edge and a minimum period of 2.11 to 2.34 ns. :meth:`MacroModel.access`
  refuses depths over ``max_depth``, the largest the figures are stated for; smaller macros
  get the 512-word figure, an upper bound for them.
* **Dynamic power**: read energy per access ``read_pj_base + read_pj_per_bit * width``,
  write energy likewise, independent of depth: assumed, nothing cited (OpenRAM's library
  gives no usable figure: it measured power on a netlist trimmed to one bit line).

Every figure is an estimate to be replaced by a compiler's datasheet; the flow's report
states the model it used.
"""

from __future__ import annotations

import dataclasses

__all__ = ["MODEL", "MacroModel", "MacroSpec", "macro_area_um2", "macro_leakage_nw",
           "macro_power_mw", "liberty_text"]


@dataclasses.dataclass(frozen=True)
class MacroModel:
    """The SRAM figures (see the module docstring for their sources)."""

    area_um2_per_bit: float = 0.987        # fit of OpenRAM's FreePDK45 library (1rw)
    area_um2_per_word: float = 7.02
    area_um2_per_data_bit: float = 77.7
    area_um2_fixed: float = 58.0
    port_factor: tuple = ((1, 1, 2.0), (2, 1, 3.0))   # (read ports, write ports, factor)
    access_ns: float = 0.45                # clock to read data, up to 512 words (assumed)
    access_ns_2048: float = 0.55           # clock to read data, 513 to 2048 words (assumed)
    max_depth: int = 2048                  # the largest depth the access times are for
    setup_ns: float = 0.10
    hold_ns: float = 0.03
    pin_cap_ff: float = 2.0                # every input pin
    clk_cap_ff: float = 10.0
    output_slew_ns: float = 0.05
    read_pj_base: float = 1.0
    read_pj_per_bit: float = 0.05
    write_pj_base: float = 1.0
    write_pj_per_bit: float = 0.06
    leak_nw_per_bit: float = 4.4           # OpenRAM's FreePDK45 library, TT 1.0 V 25 C

    def factor(self, reads: int, writes: int) -> float:
        """The area and leakage factor of a macro of ``reads`` read and ``writes`` write
        ports over a one-port one; ValueError for a port count the model has none for."""
        for r, w, f in self.port_factor:
            if (r, w) == (reads, writes):
                return f
        raise ValueError(f"no bit-cell factor for {reads} read and {writes} write ports")

    def access(self, depth: int) -> float:
        """Clock to read data (ns) of a macro of ``depth`` words; ValueError above
        ``max_depth``, where no figure is stated."""
        if depth > self.max_depth:
            raise ValueError(f"the SRAM macro model states no access time for {depth} words "
                             f"(at most {self.max_depth})")
        return self.access_ns_2048 if depth > 512 else self.access_ns

    def as_dict(self) -> dict:
        """The figures as a JSON-ready dict (the report's ``macro_model``)."""
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
        """The macro cell's name, ``sram_<depth>x<width>_<reads>r<writes>w``."""
        return f"sram_{self.depth}x{self.width}_{self.reads}r{self.writes}w"

    @property
    def abits(self) -> int:
        """Address bits of each port (at least one)."""
        return max(1, (self.depth - 1).bit_length())

    @property
    def bits(self) -> int:
        """Bits stored."""
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
    """Area of one macro (um^2): the fit of OpenRAM's library times the port factor."""
    one_port = (model.area_um2_per_bit * spec.bits + model.area_um2_per_word * spec.depth +
                model.area_um2_per_data_bit * spec.width + model.area_um2_fixed)
    return one_port * model.factor(spec.reads, spec.writes)


def macro_leakage_nw(spec: MacroSpec, model: MacroModel = MODEL) -> float:
    """Leakage of one macro (nW): per bit, times the port factor."""
    return spec.bits * model.leak_nw_per_bit * model.factor(spec.reads, spec.writes)


def macro_power_mw(spec: MacroSpec, freq_mhz: float, read_rate: float, write_rate: float,
                   model: MacroModel = MODEL) -> dict:
    """Power of one macro (mW): every read port accessed ``read_rate`` of the cycles and
    every write port ``write_rate`` of them, at ``freq_mhz``."""
    e_read = model.read_pj_base + model.read_pj_per_bit * spec.width
    e_write = model.write_pj_base + model.write_pj_per_bit * spec.width
    dynamic = freq_mhz * 1e6 * (spec.reads * read_rate * e_read +
                                spec.writes * write_rate * e_write) * 1e-12 * 1e3
    leakage = macro_leakage_nw(spec, model) * 1e-6
    return {"dynamic_mw": dynamic, "leakage_mw": leakage, "total_mw": dynamic + leakage}


def _scalar(name: str, value: float) -> str:
    """A Liberty table of one value (a constant arc or check), e.g. ``cell_rise``."""
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
                # is_macro_cell is the Liberty attribute; the OpenSTA of Debian 12 (a 2019
                # snapshot) reads is_macro instead: either puts the cell's power in the
                # report's "Macro" group, out of "Combinational".
                "    is_macro_cell : true;", "    is_macro : true;",
                "    dont_touch : true;", "    dont_use : true;",
                f"    cell_leakage_power : {macro_leakage_nw(spec, model):.3f};"]
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
