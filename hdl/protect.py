# SPDX-License-Identifier: Apache-2.0
"""Block-RAM words with check bits: parity or SECDED, checked at every read port.

``ProtectedMemory`` is a drop-in for ``amaranth.lib.memory.Memory`` as the table and the
LRU list use it (``shape=``, ``depth=``, ``init=``, ``attrs=``; ``read_port()``,
``write_port(granularity=...)``; ports with ``addr``, ``en``, ``data``), so either can be
given it as their ``memory=`` argument. Underneath is one ``Memory`` of the *coded* words:
each write granule (the whole word, or one lane of ``granularity`` bits) is stored with its
check bits, computed as it is written; each read port decodes what the block RAM returns
and adds, beside ``data``:

* ``error``: the word read is uncorrectable (parity: an odd number of flipped bits;
  SECDED: two, or a syndrome that names no bit); ``data`` is then the stored word as is;
* ``corrected``: SECDED corrected one flipped bit; ``data`` is the corrected word;
* ``error_addr``: the address of the read whose ``data`` this is (the registered address
  for a synchronous port), for the first-error registers.

A synchronous read issued in the cycle of a write to its word (lane) has its flags dropped:
a block RAM returns an undefined word then (the users of this memory never use such a read
as read; they forward the write instead).

The flags are per port and per read, combinational from the block RAM's output, valid in the
cycle ``data`` is (and meaningless while the read's ``en`` was low). With lanes, ``error`` and
``corrected`` are ORed over the lanes (``lane_error`` / ``lane_corrected`` keep them apart).

A read port made with ``registered=True`` registers the coded word as it leaves the block
RAM, raw, and decodes the register: ``data`` and the flags come one cycle later (two cycles
after the address), and no logic sits between the block RAM's output and a register (on the
ECP5 a DP16KD's word takes 5.8 ns to leave the block; a syndrome and a correction behind it
fill the rest of a 10 ns cycle).

``hdl.error_report.collect_errors`` turns the checks of many ports into one report. The
ports and the logic behind each are ``hdl.protect_ports``'s.

The codes, and which one a memory gets (decision D11 of ``docs/spec-decisions.md``: SECDED
when its coded words take no more ECP5 DP16KD block RAMs than with parity), are
``hdl.ecc``'s (``Code``, ``choose_protection``).
"""

from collections.abc import Iterable, Mapping

from amaranth import *
from amaranth.hdl import MemoryData
from amaranth.lib import data
from amaranth.lib.memory import Memory

from .ecc import Code, check_protection, choose_protection, lane_granules
from .layouts import check_int, check_shape
from .protect_ports import ReadPort, WritePort
from .ram import check_memory

__all__ = ["ProtectedMemory"]


class ProtectedMemory(Elaboratable):
    """A ``Memory`` whose every word (or write lane) carries parity or SECDED check bits.

    Parameters
    ----------
    shape, depth, init, attrs
        As for ``amaranth.lib.memory.Memory`` (``init`` values are of ``shape``, each
        checked here: a ``TypeError`` / ``ValueError`` naming ``init`` otherwise).
    protection : str
        ``"auto"`` (default: ``choose_protection``, decided when the first write port
        fixes the granularity, else for whole words), ``"secded"``, ``"parity"`` or
        ``"none"`` (no check bits; the flags stay 0).
    correct : bool
        ``True`` (default): SECDED read ports correct one flipped bit. ``False``: check
        only (``Code.failed``): any failed check is ``error``, ``data`` is the stored data.
    sweep_en, sweep_addr : Value or None
        The recovery sweep (docs/spec-decisions.md D11): while ``sweep_en`` is high the
        first write port writes the zero code word to every lane of word ``sweep_addr``
        instead of its own write.
    memory : class
        The memory of the coded words (default ``amaranth.lib.memory.Memory``; the formal
        harness gives its register model), built as ``memory(shape=, depth=, init=,
        attrs=)`` with the coded width; a write port with lanes asks it for
        ``granularity=`` the coded lane's width in bits.

    Methods
    -------
    write_port(domain="sync", granularity=None, precoded=False)
        Ports ``addr``, ``data`` (of ``shape``), ``en`` (one bit per lane). Every write
        port of one memory must have the same granularity (the code word is the lane).
        ``precoded``: the user gives the coded words themselves on ``coded`` (``lanes *
        code.width`` bits; e.g. from ``Code.recode``), and ``data`` is not used.
    read_port(domain="sync", transparent_for=(), registered=False)
        Ports ``addr``, ``en``, ``data`` (of ``shape``, corrected), ``raw`` and ``flip``
        (the stored data bits as read and their correction: ``data`` is ``raw ^ flip``,
        for a user that registers the correction before it applies it), ``coded`` (the
        coded word as read, e.g. for ``Code.recode``), ``error``,
        ``corrected``, ``lane_error``, ``lane_corrected``, ``error_addr`` (see the module
        docstring). ``transparent_for`` names write ports of this memory. ``registered``
        (a synchronous port without ``transparent_for`` only): the coded word is
        registered after the block RAM and decoded after that register, so ``data``, the
        flags and ``error_addr`` are those of the read issued two cycles before (the
        register loads every cycle; ``en`` low keeps the block RAM's output, as for
        ``Memory``).

    Attributes
    ----------
    code : Code
        The code of one granule (fixed by the first port made).
    storage : MemoryData
        The coded words (``code.width`` bits per lane), for a testbench that flips bits
        (the default ``memory`` only; ``None`` for another).
    inner : memory instance
        The memory of the coded words (after the first port is made), e.g. for the formal
        views of its contents.
    """

    def __init__(self, *, shape, depth, init=(), attrs=None, protection="auto",
                 correct=True, sweep_en=None, sweep_addr=None, memory=Memory):
        check_protection(protection)
        check_int("depth", depth, 1)
        self.width = check_shape("shape", shape)
        if attrs is not None and not isinstance(attrs, Mapping):
            raise TypeError(f"attrs must be a mapping of attribute names or None, not "
                            f"{attrs!r}")
        if init is not None and (not isinstance(init, Iterable) or isinstance(init, str)):
            raise TypeError(f"init must be a sequence of initial words or None, not {init!r}")
        self.shape, self.depth, self.attrs = shape, depth, dict(attrs or {})
        self.init = list(init or ())
        if len(self.init) > depth:
            raise ValueError(f"init must have at most depth ({depth}) words, not "
                             f"{len(self.init)}")
        self._init_bits = [self._word_bits(k, value) for k, value in enumerate(self.init)]
        if not isinstance(correct, bool):
            raise TypeError(f"correct must be a bool, not {correct!r}")
        if (sweep_en is None) != (sweep_addr is None):
            raise ValueError("sweep_en and sweep_addr go together")
        check_memory(memory)
        self._memory = memory
        self.protection = protection
        self.correct = correct
        self._sweep = None if sweep_en is None else (sweep_en, sweep_addr)
        self.code = None
        self.lanes = 1
        self.storage = None
        self._inner = None
        self._write_ports, self._read_ports = [], []

    def _word_bits(self, k, value):
        """The bits of the initial word ``init[k]`` (a value of ``shape``, as ``Memory``
        takes it: an integer is truncated to the width); ``TypeError`` / ``ValueError``
        naming ``init`` for a value that is not one."""
        try:
            if isinstance(self.shape, data.Layout):
                raw = self.shape.const(value).as_bits()
            else:
                raw = Const(value, Shape.cast(self.shape)).value
        except (TypeError, ValueError) as error:
            raise type(error)(f"init[{k}] must be a value of shape {self.shape!r}, not "
                              f"{value!r} ({error})") from None
        return raw & ((1 << self.width) - 1)

    def _granule_bits(self, granularity):
        """A write port's granularity in bits (for an ``ArrayLayout`` shape, as for
        ``Memory``, it counts elements)."""
        if granularity is not None and isinstance(self.shape, data.ArrayLayout):
            return granularity * Shape.cast(self.shape.elem_shape).width
        return granularity

    def _fix_code(self, granularity, *, write):
        if self.code is not None:
            if write and granularity != self._granularity:
                raise ValueError("every write port of a ProtectedMemory must have the same "
                                 "granularity (the code word is the write lane), and write "
                                 "ports with a granularity come before the read ports")
            return
        g, self.lanes = lane_granules(self.width, self._granule_bits(granularity))
        self._granularity = granularity
        kind = (choose_protection(self.width, self.depth, self._granule_bits(granularity))
                if self.protection == "auto" else self.protection)
        self.code = Code(kind, g)
        coded = [self._encode_int(raw) for raw in self._init_bits]
        if self._memory is Memory:
            self.storage = MemoryData(shape=self.lanes * self.code.width, depth=self.depth,
                                      init=coded)
            self._inner = Memory(data=self.storage, attrs=self.attrs)
        else:
            self._inner = self._memory(shape=self.lanes * self.code.width, depth=self.depth,
                                       init=coded, attrs=self.attrs)

    @property
    def inner(self):
        return self._inner

    def _encode_int(self, raw):
        g, w = self.code.k, self.code.width
        return sum(self.code.encode_int((raw >> (i * g)) & ((1 << g) - 1)) << (i * w)
                   for i in range(self.lanes))

    def write_port(self, *, domain="sync", granularity=None, precoded=False):
        if not isinstance(precoded, bool):
            raise TypeError(f"precoded must be a bool, not {precoded!r}")
        self._fix_code(granularity, write=True)
        inner = self._inner.write_port(
            domain=domain, granularity=self.code.width if granularity is not None else None)
        port = WritePort(self, inner, domain, granularity, precoded)
        self._write_ports.append(port)
        return port

    def read_port(self, *, domain="sync", transparent_for=(), registered=False):
        if not isinstance(registered, bool):
            raise TypeError(f"registered must be a bool, not {registered!r}")
        if registered and (domain == "comb" or transparent_for):
            raise ValueError("a registered read port is synchronous and not transparent")
        self._fix_code(None, write=False)
        inner = self._inner.read_port(domain=domain,
                                      transparent_for=[wp.inner for wp in transparent_for])
        port = ReadPort(self, inner, domain, registered)
        self._read_ports.append(port)
        return port

    def elaborate(self, platform):
        m = Module()
        if self._inner is None:
            self._fix_code(None, write=False)
        m.submodules.storage = self._inner
        for n, wp in enumerate(self._write_ports):
            wp.build(m, n, code=self.code, lanes=self.lanes,
                     sweep=self._sweep if n == 0 else None)
        for n, rp in enumerate(self._read_ports):
            rp.build(m, n, code=self.code, lanes=self.lanes, correct=self.correct,
                     write_ports=self._write_ports)
        return m
