# SPDX-License-Identifier: Apache-2.0
"""Lines, tags and hash windows: the steering helpers of the directed and random tests."""

from __future__ import annotations

import random

import mmh3

from regmap import Params

__all__ = ["AddrSpace"]


class AddrSpace:
    """Addresses of a build with parameters ``p``; random choices come from ``rng``."""

    def __init__(self, p: Params, rng: random.Random):
        self.p, self.rng = p, rng
        self.tag_mask = (1 << p.TAG_WIDTH) - 1
        self.line_bits = p.ADDR_WIDTH - p.LINE_SHIFT

    def tag_of(self, addr):
        addr &= (1 << self.p.ADDR_WIDTH) - 1
        return (addr >> self.p.LINE_SHIFT) & self.tag_mask

    def h(self, tag, seed=0):
        """The home slot of ``tag`` under ``seed`` (MurmurHash3 of the tag, spec section 3)."""
        return mmh3.hash(int(tag).to_bytes(8, "little"), seed, signed=False) % self.p.ENTRIES

    def addr(self, line, jitter=True):
        """A byte address of ``line`` (random offset inside the line when ``jitter``)."""
        off = self.rng.randrange(1 << self.p.LINE_SHIFT) if jitter and self.p.LINE_SHIFT else 0
        return ((line << self.p.LINE_SHIFT) | off) & ((1 << self.p.ADDR_WIDTH) - 1)

    def random_line(self):
        return self.rng.randrange(1 << min(self.line_bits, 62))

    def lines_with_h(self, h, n, seed=0, exclude=()):
        """``n`` distinct lines (distinct tags) whose hash is ``h``."""
        out, tags = [], {self.tag_of(self.addr(line, False)) for line in exclude}
        tries = 0
        while len(out) < n:
            tries += 1
            assert tries < 200 * self.p.ENTRIES * n + 10000, "no line found for window"
            line = self.random_line()
            tag = line & self.tag_mask
            if tag in tags or self.h(tag, seed) != h:
                continue
            tags.add(tag)
            out.append(line)
        return out

    def alias_line(self, line):
        """A different line with the same tag (only when TAG_WIDTH < line bits)."""
        if self.p.TAG_WIDTH >= self.line_bits:
            return None
        hi = self.rng.randrange(1, 1 << min(self.line_bits - self.p.TAG_WIDTH, 40))
        return (line & self.tag_mask) | (hi << self.p.TAG_WIDTH)
