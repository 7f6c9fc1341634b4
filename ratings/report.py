"""Rating tables for people and for programs: ``format_ratings(rows, fmt)``.

=============  ==============================================================================
``table``      aligned text for a terminal (``rich_table`` gives the same as a rich Table)
``markdown``   a GitHub-flavoured Markdown table, numbers right-aligned
``csv``        for spreadsheets and scripts
``json``       a list of objects, for scripts
=============  ==============================================================================

The human formats (``table``, ``markdown``) show rank, bot, μ, σ, μ − 3σ, matches, wins and
mean place, the decimals rounded to 2, a game column only when the rows hold several games, and
an ``absent`` column (the matches a bot was absent from: not rated) only when a bot was.
The machine formats (``csv``, ``json``) always have the game and keep every float at full
precision (so a script can compare with ``recompute``), with the column names ``rank, bot, game,
mu, sigma, conservative, matches, wins, mean_place, absent``. Ranks count within each game. Rows
come from :meth:`cardarena.ratings.Ledger.ratings`, already sorted.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from .table import RatingRow

FORMATS = ("table", "json", "csv", "markdown")
MACHINE_COLUMNS = ("rank", "bot", "game", "mu", "sigma", "conservative", "matches", "wins", "mean_place", "absent")


def _several_games(rows: Sequence[RatingRow]) -> bool:
    return len({r.game for r in rows}) > 1


def _human(rows: Sequence[RatingRow]) -> tuple[list[str], list[bool], list[list[str]]]:
    """Headers, right-alignment per column, and cells as text."""
    games = _several_games(rows)
    absent = any(r.absent for r in rows)
    headers = (["rank", "bot"] + (["game"] if games else [])
               + ["μ", "σ", "μ − 3σ", "matches", "wins", "mean place"] + (["absent"] if absent else []))
    right = [True, False] + ([False] if games else []) + [True] * (7 if absent else 6)
    cells = [[str(r.rank), r.bot] + ([r.game] if games else []) +
             [f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.conservative:.2f}", str(r.matches), str(r.wins),
              f"{r.mean_place:.2f}"] + ([str(r.absent) if r.absent else ""] if absent else []) for r in rows]
    return headers, right, cells


def _table(rows: Sequence[RatingRow]) -> str:
    headers, right, cells = _human(rows)
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right)).rstrip()

    out = [line(headers), "  ".join("─" * w for w in widths)]
    out += [line(c) for c in cells] if cells else ["(no rated matches yet)"]
    return "\n".join(out) + "\n"


def _markdown(rows: Sequence[RatingRow]) -> str:
    headers, right, cells = _human(rows)
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---:" if r else ":---" for r in right) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in cell) + " |" for cell in cells]
    return "\n".join(out) + "\n"


def _csv(rows: Sequence[RatingRow]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(MACHINE_COLUMNS)
    for r in rows:
        writer.writerow([r.rank, r.bot, r.game, repr(r.mu), repr(r.sigma), repr(r.conservative), r.matches,
                         r.wins, repr(r.mean_place), r.absent])
    return buf.getvalue()


def _json(rows: Sequence[RatingRow]) -> str:
    return json.dumps([{k: getattr(r, k) for k in MACHINE_COLUMNS} for r in rows], indent=2,
                      ensure_ascii=False) + "\n"


def format_ratings(rows: Sequence[RatingRow], fmt: str = "table") -> str:
    """The rating table as text in one of :data:`FORMATS`."""
    formatters = {"table": _table, "json": _json, "csv": _csv, "markdown": _markdown}
    if fmt not in formatters:
        raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    return formatters[fmt](list(rows))


def rich_table(rows: Sequence[RatingRow], title: str | None = None):
    """The ``table`` format as a :class:`rich.table.Table`, for a colour terminal."""
    from rich.table import Table

    headers, right, cells = _human(rows)
    table = Table(title=title)
    for h, r in zip(headers, right):
        table.add_column(h, justify="right" if r else "left", style="bold" if h == "μ − 3σ" else None)
    for c in cells:
        table.add_row(*c)
    return table
