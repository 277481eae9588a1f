# SPDX-License-Identifier: Apache-2.0
"""``XorCodedArray``: one pointer array of the LRU list (``hdl.lru``) as two block-RAM banks
``X0``, ``X1`` with one write port each, whose logical word is ``X0[s] ^ X1[s]`` (an
XOR-coded two-write-port memory): write port A stores ``v ^ X1[a]`` into ``X0[a]``, port B
stores ``v ^ X0[b]`` into ``X1[b]``, the other bank's word fetched by a feedback read.

It builds into the ``LruList``'s module (``m``): its memories are that component's
submodules and its registers that component's, so that the list's pipeline stages (C1 ..
C6, ``hdl.lru``) are one component's.
"""

from amaranth import *
from amaranth.lib.memory import Memory

__all__ = ["XorCodedArray"]


class XorCodedArray:
    """One pointer array of ``LruList`` as two XOR-coded banks (``hdl.lru``'s docstring).

    ``read(addr)`` issues the command read (C1); ``value(addr_q, addr_qq)`` gives the
    logical word in C3. ``request(a, b)`` takes the logical write requests ``(en, addr, data)`` of ports
    A and B decided in C3 and registers them (``req``); their feedback reads are issued in
    C4 from those registers, the words are registered in C5 (``fbw``) and the coded writes
    happen in C6 (``w``).

    Every read port is non-transparent and the banks carry ``no_rw_check``: a read that
    meets a write of the same word in its cycle returns an undefined word, and no such word
    is ever used. The writes a command read meets or misses are forwarded from registers
    (``value``), and the bank writes a feedback read meets or misses are bypassed from
    registers. Every block-RAM output goes straight into a register.

    With ``port_registered`` (protected banks, ``hdl.protect.ProtectedMemory``) the C6
    writes give the banks their coded words (``write_port(precoded=True)``): the code word
    of the written data XOR that of the other bank's word (the bypassed write's, from a
    register, or the corrected feedback word's, ``Code.recode``), equal to the code word
    the memory's encoder would make of ``data ^ other``.
    """

    def __init__(self, m, name, depth, width, registered=True, memory=Memory,
                 port_registered=False):
        self.m, self.name, self.registered = m, name, registered
        self.port_registered = port_registered
        self.banks = [memory(shape=width, depth=depth, init=[], attrs={"no_rw_check": 1})
                      for _ in range(2)]
        self.memory_names = [f"{name}{i}" for i in range(2)]
        for i, mem in enumerate(self.banks):
            m.submodules[f"{name}{i}"] = mem
        # (protected, registered: C6 gives the coded words, see request)
        self.wp = [mem.write_port(**({"precoded": True} if port_registered else {}))
                   for mem in self.banks]
        rp_args = {"registered": True} if port_registered else {}
        self.cmd_rp = [mem.read_port(**rp_args) for mem in self.banks]
        self.fb_rp = [mem.read_port(**rp_args) for mem in self.banks]
        if port_registered:
            # C2 is the read port's own register (hdl.protect: the coded word registered,
            # then corrected): its data is C3's.
            self.words = [rp.data for rp in self.cmd_rp]
        elif registered:
            # C2: the command read's words, registered as they leave the block RAMs.
            self.words = [Signal(width, name=f"{name}{i}_word") for i in range(2)]
            m.d.sync += [q.eq(rp.data) for q, rp in zip(self.words, self.cmd_rp)]
        else:
            self.words = [rp.data for rp in self.cmd_rp]

        def writes(suffix):
            return {port: (Signal(name=f"{name}_{port}_{suffix}en"),
                           Signal(range(depth), name=f"{name}_{port}_{suffix}addr"),
                           Signal(width, name=f"{name}_{port}_{suffix}data"))
                    for port in "ab"}
        # The logical writes of the commands in C4 (feedback reads now), C5 (their words
        # arrive) and C6 (written now), and those of the two cycles before, for forwarding
        # and formal views: newest first. Not registered: those written now (C3) and in
        # the cycle before.
        stages = ("req_", "fbw_", "", "last_", "last2_") if registered else ("", "last_")
        self.pending = [writes(sfx) for sfx in stages]
        self.w = self.pending[stages.index("")]
        for port in "ab":
            for newer, older in zip(self.pending, self.pending[1:]):
                m.d.sync += [q.eq(x) for q, x in zip(older[port], newer[port])]

    def read(self, addr):
        for rp in self.cmd_rp:
            self.m.d.comb += [rp.addr.eq(addr), rp.en.eq(1)]

    def value(self, addr_q, addr_qq):
        """The logical word at ``addr_qq`` (C3: read issued two cycles ago; not registered:
        C2, one cycle ago), with the writes of the read's cycle (which met it), of the
        cycles since and of the commands still in C4 and C5 (which it missed) forwarded.
        ``addr_q`` is ``addr_qq`` one cycle earlier (used when registered)."""
        # The forwarding choice comes from registers: the write requests and addr_qq.
        # Ports A and B never write one address in one cycle; later writes are newer.
        cands = [stage[port] for stage in self.pending for port in "ab"]
        if self.registered:
            # Every stage but the newest holds now what the stage before it held a cycle
            # ago: compare that with addr_q a cycle ahead and register the hit, so only
            # the newest write's comparison sits in front of the multiplexers.
            hits = [en & (addr == addr_qq) for en, addr, _ in cands[:2]]
            for k, (en, addr, _) in enumerate(cands[:-2]):
                hit = Signal(name=f"{self.name}_fw_hit{k + 2}")
                self.m.d.sync += hit.eq(en & (addr == addr_q))
                hits.append(hit)
        else:
            hits = [en & (addr == addr_qq) for en, addr, _ in cands]
        newest = self.words[0] ^ self.words[1]
        for hit, (_, _, dat) in reversed(list(zip(hits, cands))):
            newest = Mux(hit, dat, newest)
        return newest

    def request(self, a, b):
        """Logical writes decided this cycle (C3): register them; C4 issues their feedback
        reads (port A needs ``X1[a]``, port B ``X0[b]``), C5 registers the words and C6
        writes. Not registered: decided in C2, which issues the feedback reads; C3
        writes."""
        fb_words = self._feedback_reads(a, b)
        self._bank_write_history()
        if self.registered:
            self._feedback_bypass_hits()
        self._bank_writes(fb_words)

    def _feedback_reads(self, a, b):
        """C4: the requests registered and the other bank's word read at their addresses;
        the words as C6 sees them (C5: registered, or the read port's own register)."""
        m = self.m
        first = self.pending[0]
        for port, (en, addr, dat) in (("a", a), ("b", b)):
            q_en, q_addr, q_data = first[port]
            m.d.sync += [q_en.eq(en), q_addr.eq(addr), q_data.eq(dat)]
        fb_addr = {"a": first["a"][1], "b": first["b"][1]} if self.registered else \
            {"a": a[1], "b": b[1]}
        m.d.comb += [
            self.fb_rp[1].addr.eq(fb_addr["a"]), self.fb_rp[1].en.eq(1),
            self.fb_rp[0].addr.eq(fb_addr["b"]), self.fb_rp[0].en.eq(1),
        ]
        if self.port_registered:          # C5: the read port's own register
            return [rp.data for rp in self.fb_rp]
        if self.registered:
            fb_words = [Signal.like(rp.data, name=f"{self.name}{k}_fb_word")
                        for k, rp in enumerate(self.fb_rp)]
            m.d.sync += [q.eq(rp.data) for q, rp in zip(fb_words, self.fb_rp)]
            return fb_words
        return [rp.data for rp in self.fb_rp]

    def _bank_write_history(self):
        """The bank writes of the last two cycles, registered (``bank_last``,
        ``bank_last2``), and with ``port_registered`` their coded words: the feedback read
        (C4) met the bank writes of its cycle and missed those of C5, so C6 takes both from
        registers. (Not registered: C3; the read (C2) met only those of its cycle,
        ``bank_last``.)"""
        m = self.m
        bank_last, bank_last2 = [], []
        for k, wp in enumerate(self.wp):
            last, last2 = ((Signal(name=f"{self.name}{k}_w{sfx}_en"),
                            Signal.like(wp.addr, name=f"{self.name}{k}_w{sfx}_addr"),
                            Signal.like(wp.data, name=f"{self.name}{k}_w{sfx}_data"))
                           for sfx in ("last", "last2"))
            m.d.sync += [last[0].eq(wp.en), last[1].eq(wp.addr), last[2].eq(wp.data)]
            m.d.sync += [q.eq(x) for q, x in zip(last2, last)]
            bank_last.append(last)
            bank_last2.append(last2)
        self.bank_last, self.bank_last2 = bank_last, bank_last2
        if self.port_registered:
            self.coded_last, self.coded_last2 = [], []
            for k, wp in enumerate(self.wp):
                q1 = Signal.like(wp.coded, name=f"{self.name}{k}_wlast_coded")
                q2 = Signal.like(wp.coded, name=f"{self.name}{k}_wlast2_coded")
                m.d.sync += [q1.eq(wp.coded), q2.eq(q1)]
                self.coded_last.append(q1)
                self.coded_last2.append(q2)

    def _feedback_bypass_hits(self):
        """Which bypass C6 applies, decided a cycle ahead (C5, from the write the command in
        C5 will make and the bank writes of C5 and C4) and registered (``fb_hit``), so C6
        is a multiplexer and an XOR behind registers. Port A (bank 0) takes bank 1's word,
        port B (bank 1) bank 0's."""
        m = self.m
        fbw = self.pending[1]
        self.fb_hit = {}
        for port, k in (("a", 1), ("b", 0)):
            addr_next = fbw[port][1]
            now_en, now_addr = self.wp[k].en, self.wp[k].addr      # bank_last next
            hit_last = Signal(name=f"{self.name}_{port}_fb_hit_last")
            hit_last2 = Signal(name=f"{self.name}_{port}_fb_hit_last2")
            m.d.sync += [hit_last.eq(now_en & (now_addr == addr_next)),
                         hit_last2.eq(self.bank_last[k][0] & (self.bank_last[k][1] == addr_next))]
            self.fb_hit[port] = (hit_last2, hit_last)

    def _other_bank(self, fb_words, port, k, addr):
        """Bank ``k``'s word at ``addr`` now: the feedback read's, or a bypassed bank
        write's."""
        word = fb_words[k]
        if self.registered:
            hits = self.fb_hit[port]
            cands = (self.bank_last2[k], self.bank_last[k])
        else:
            cands = (self.bank_last[k],)
            hits = [en & (l_addr == addr) for en, l_addr, _ in cands]
        for hit, (_, _, l_data) in zip(hits, cands):                 # oldest first
            word = Mux(hit, l_data, word)
        return word

    def _bank_writes(self, fb_words):
        """C6: each bank written with the logical word XOR the other bank's."""
        m = self.m
        a_en, a_addr, a_data = self.w["a"]
        b_en, b_addr, b_data = self.w["b"]
        m.d.comb += [self.wp[0].en.eq(a_en), self.wp[0].addr.eq(a_addr),
                     self.wp[1].en.eq(b_en), self.wp[1].addr.eq(b_addr)]
        if not self.port_registered:
            m.d.comb += [self.wp[0].data.eq(a_data ^ self._other_bank(fb_words, "a", 1, a_addr)),
                         self.wp[1].data.eq(b_data ^ self._other_bank(fb_words, "b", 0, b_addr))]
            return
        # Protected (the feedback words corrected after the read ports' registers): the
        # coded word written is the code word of `data ^ other bank's word`, which the
        # code's linearity makes the XOR of the code word of `data` (from a register) and
        # that of the other bank's word: the bypassed bank write's (registered) or the
        # feedback word's as corrected (``Code.recode``, from the syndrome), so that no
        # encoder sits behind the correction and the bypass choice.
        for k, (port, dat) in ((0, ("a", a_data)), (1, ("b", b_data))):
            other = 1 - k
            hit_last2, hit_last = self.fb_hit[port]
            word = self.banks[other].code.recode(self.fb_rp[other].coded,
                                                 correct=self.banks[other].correct)
            word = Mux(hit_last2, self.coded_last2[other], word)
            word = Mux(hit_last, self.coded_last[other], word)
            coded = Signal.like(self.wp[k].coded, name=f"{self.name}{k}_coded_write")
            m.d.comb += [coded.eq(self.banks[k].code.encode(dat) ^ word),
                         self.wp[k].coded.eq(coded),
                         self.wp[k].data.eq(coded[:len(self.wp[k].data)])]
