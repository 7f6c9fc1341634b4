"""Helpers of the codec tests: the observation table a codec module's docstring documents, and
the slots of a tensor's parts.

``documented_layout(module, N=4)`` reads the table under the docstring's ``Observation`` heading
(the first column the part's name, the second its size, written with the codec's own letters
such as ``N×52``) and gives each part's size with the letters bound; ``slot(codec, part, k)`` is
the flat index of a part's entry ``k``, ``part(codec, obs, name)`` the part's values;
``check_decision(codec, legal)`` the per-decision checks of the action ids.
"""
from __future__ import annotations

import re
from collections.abc import Sequence


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


def documented_layout(module, **letters: int) -> list[tuple[str, int]]:
    """(name, size) of every part the docstring documents, its letters bound to ``letters``."""
    return [(name, documented_size(size, **letters)) for name, size in documented_parts(module)]


def slot(codec, part: str, k: int = 0) -> int:
    """The flat index of entry ``k`` of a layout part."""
    start, length = {name: (s, n) for name, s, n in codec.layout()}[part]
    assert 0 <= k < length, f"{part} has {length} entries, not {k + 1}"
    return start + k


def part(codec, obs, name: str):
    """The values of one layout part of a flat tensor."""
    start, length = {n: (s, k) for n, s, k in codec.layout()}[name]
    return obs[start:start + length]


def documented_size(expr: str, **letters: int) -> int:
    """``"N×52"`` with N=4 → 208: a size of the table, its letters bound to numbers."""
    text = expr.replace("×", "*")
    if not re.fullmatch(r"[\w*+() ]+", text):
        raise ValueError(f"not a size: {expr!r}")
    return int(eval(text, {"__builtins__": {}}, letters))  # noqa: S307 (our docstring's formula)


def check_decision(codec, legal: Sequence[dict]) -> None:
    """One decision's legal actions (their JSON) have distinct ids below ``num_actions``;
    ``action_json_of`` gives back each id's fields, and ``pick`` each action's index."""
    ids = codec.ids(legal)
    assert len(set(ids)) == len(ids) and max(ids) < codec.num_actions, legal
    for index, (i, j) in enumerate(zip(ids, legal)):
        (key, fields), = codec.action_json_of(i).items()
        assert all(j[key][f] == v for f, v in fields.items()), (i, j)
        assert codec.pick(legal, i) == index
