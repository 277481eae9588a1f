# SPDX-License-Identifier: Apache-2.0
"""The doubly linked list over slots that the model keeps (spec section 10): ``next``
points towards the tail, ``prev`` towards the head, and ``NONE`` (-1) is "no slot" (a
null pointer, an empty list's end, a free slot's tag). The predictor mode's lists
(``golden_model.predictor``) use the same functions."""

from __future__ import annotations

__all__ = ["NONE", "link_at_head", "link_at_tail", "move_to_head", "unlink", "walk_list"]

NONE = -1          # "no slot": a free slot's tag, a null LRU pointer, an empty list end


def link_at_head(prev: list, next_: list, slot: int, head: int, tail: int):
    """Link an unlisted slot before the old head (an insert); return the new head, tail.

    ``next`` points towards the tail, ``prev`` towards the head (spec section 10).
    """
    prev[slot] = NONE
    next_[slot] = head
    if head == NONE:
        tail = slot
    else:
        prev[head] = slot
    return slot, tail


def move_to_head(prev: list, next_: list, slot: int, head: int, tail: int):
    """Unlink a listed slot and link it before the old head (an observe of a tracked line,
    or a replacement: the victim's slot takes the new line); return the new head, tail."""
    if slot == head:
        return head, tail
    before, after = prev[slot], next_[slot]
    next_[before] = after
    if after == NONE:
        tail = before
    else:
        prev[after] = before
    return link_at_head(prev, next_, slot, head, tail)


def unlink(prev: list, next_: list, slot: int, head: int, tail: int) -> tuple[int, int]:
    """Remove ``slot`` from the list with ends ``head``/``tail``; return the new ends."""
    before, after = prev[slot], next_[slot]
    if before == NONE:
        head = after
    else:
        next_[before] = after
    if after == NONE:
        tail = before
    else:
        prev[after] = before
    prev[slot] = next_[slot] = NONE
    return head, tail


def link_at_tail(prev: list, next_: list, slot: int, head: int, tail: int) -> tuple[int, int]:
    """Link an unlisted ``slot`` after ``tail``; return the new ends."""
    prev[slot], next_[slot] = tail, NONE
    if tail == NONE:
        head = slot
    else:
        next_[tail] = slot
    return head, slot


def walk_list(prev: list, next_: list, head: int, tail: int, entries: int,
              name: str) -> list[int]:
    """The slots of one doubly linked list from ``tail`` to ``head``, checking on the way that
    every pointer is in range, ``next`` mirrors ``prev``, there is no cycle and the walk ends
    at ``head``. Raises ``AssertionError`` (naming the list ``name``) at the first violation."""
    if (head == NONE) != (tail == NONE):
        raise AssertionError(f"{name}: head={head} but tail={tail}")
    order: list[int] = []
    seen: set[int] = set()
    slot, after = tail, NONE      # `after` is the slot visited before, towards the tail
    while slot != NONE:
        if not 0 <= slot < entries:
            raise AssertionError(f"{name}: pointer {slot} out of range after slot {after}")
        if slot in seen:
            raise AssertionError(f"{name}: cycle through slot {slot}")
        if next_[slot] != after:
            raise AssertionError(f"{name}: next[{slot}] = {next_[slot]}, expected {after}")
        seen.add(slot)
        order.append(slot)
        slot, after = prev[slot], slot
    if order and order[-1] != head:
        raise AssertionError(f"{name}: walking from the tail ends at {order[-1]}, "
                             f"but head = {head}")
    return order
