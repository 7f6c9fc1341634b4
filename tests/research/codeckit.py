"""Helpers of the codec tests: the observation table a codec module's docstring documents.

``documented_parts(module)`` reads the table under the docstring's ``Observation`` heading (the
first column the part's name, the second its size, written with the codec's own letters such
as ``N×52``); ``documented_size(expr, N=...)`` evaluates a size.
"""
from __future__ import annotations

import re


def documented_parts(module) -> list[tuple[str, str]]:
    """(name, size expression) of every row of the module's observation table, in order."""
    doc = module.__doc__ or ""
    section = doc.split("\nObservation\n", 1)[1]
    rules = -1  # the heading's own underline comes first
    parts = []
    for line in section.splitlines():
        if line.startswith("="):
            rules += 1  # 1: the table's top, 2: below its header, 3: its bottom
            if rules == 3:
                break
            continue
        if rules == 2 and line and not line[0].isspace():
            name, size = line.split()[:2]
            parts.append((name, size))
    return parts


def documented_size(expr: str, **letters: int) -> int:
    """``"N×52"`` with N=4 → 208: a size of the table, its letters bound to numbers."""
    text = expr.replace("×", "*")
    if not re.fullmatch(r"[\w*+() ]+", text):
        raise ValueError(f"not a size: {expr!r}")
    return int(eval(text, {"__builtins__": {}}, letters))  # noqa: S307 (a size formula of our own docstring)
