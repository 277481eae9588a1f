# SPDX-License-Identifier: Apache-2.0
"""How the docs write a figure, for the tests that check the docs against their records."""


def grouped(n: int) -> str:
    """An integer as the docs write it: groups of three digits apart by a space."""
    return f"{n:,}".replace(",", " ")


def flat(text: str) -> str:
    """Text as one line: its line breaks and runs of spaces as single spaces (a sentence
    the docs wrap anywhere)."""
    return " ".join(text.split())


def table_rows(text: str, header_start: str) -> dict[str, list[str]]:
    """The Markdown table of ``text`` whose header row starts with ``header_start`` (as
    ``"| workload | split"``): each row's first cell -> its other cells, stripped."""
    start = text.index(header_start)
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows
