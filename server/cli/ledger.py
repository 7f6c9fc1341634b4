"""``cardarena ledger …``: check the ledger (complete, counted once, ratings equal to their
recomputation, with ``--replay`` every match log), upgrade its schema, and prune old matches'
step logs (``Ledger.prune``: results, ratings and deals kept; the space given back)."""

import math
import time
from pathlib import Path
from typing import Annotated

import typer

from .app import CliError, DbOpt, ledger_app, out
from .common import _count_bar, read_ledger
from .matches import _replay, _say_older, _say_pruned

#: ``ledger prune --kind``: a match kind, or all; and how the one line names them.
PRUNE_KINDS = {"ladder": "ladder matches", "league": "league matches", "match": "ad-hoc matches (`play --record`)",
               "all": "matches"}


@ledger_app.command("upgrade")
def ledger_upgrade(db: DbOpt = "cardarena.db"):
    """Migrate a ledger made by an earlier cardarena to this one's schema (back it up first).

    Every other command refuses a ledger of another schema version with one line saying to run
    this. A ledger already current is left as it is."""
    from cardarena.ratings import Ledger, LedgerError, LedgerStorageError
    if not db.strip():
        raise typer.BadParameter("is empty: give a SQLite file or an SQLAlchemy URL", param_hint="--db")
    if "://" not in db and db != ":memory:" and not Path(db).expanduser().exists():
        raise CliError(f"no ledger at {db!r}")
    t0 = time.monotonic()
    try:
        was, now = Ledger.upgrade(db)
    except (LedgerError, LedgerStorageError) as e:
        raise CliError(str(e)) from None
    from cardarena.ratings.schema import RELEASES
    if was == now:
        out.print(f"the ledger {db} is at schema version {now} ({RELEASES[now]}) already: nothing to do", markup=False)
    else:
        out.print(f"the ledger {db} upgraded from schema version {was} ({RELEASES[was]}) to {now} ({RELEASES[now]}) "
                  f"in {time.monotonic() - t0:.1f} s", markup=False)


@ledger_app.command("check")
def ledger_check(replay: Annotated[bool, typer.Option("--replay", help="Also replay every finished match from its seed and steps (`match verify` for all).")] = False,
                 db: DbOpt = "cardarena.db"):
    """Check the ledger: every finished match complete, nothing counted twice, every rating and its
    history equal to their recomputation (and with --replay, every match log). Exit 1 on problems."""
    ledger = read_ledger(db)
    counts = ledger.counts()
    bar, update = _count_bar("checking the ratings")
    with bar:
        problems = ledger.check(progress=update)
    replayed = 0
    older: list[int] = []
    pruned: list[int] = []
    if replay:
        ids = ledger.match_ids("finished")
        bar, update = _count_bar("replaying the matches")
        with bar:
            for k, mid in enumerate(ids):
                problems += [f"match {mid}: {p}" for p in _replay(ledger.match(mid), older, pruned)]
                replayed += 1
                update(k + 1, len(ids))
        replayed -= len(older) + len(pruned)
        _say_older(older)
        _say_pruned(pruned)
    m = counts["matches"]
    n_pruned = ledger.pruned_count()
    finished = f"{m['finished']} finished" + (f" ({n_pruned} of them pruned: results kept, step logs dropped)"
                                              if n_pruned else "")
    summary = (f"{sum(m.values())} matches ({finished}, {m['failed']} failed, {m['running']} running, "
               f"{m['scheduled']} scheduled), {counts['bots']} bots, {counts['leagues']} league{'s' if counts['leagues'] != 1 else ''}")
    if problems:
        for p in problems:
            out.print(p, markup=False)
        raise CliError(f"the ledger has {len(problems)} problem{'s' if len(problems) > 1 else ''} ({summary})")
    out.print(f"ledger OK: {summary}; every finished match is complete and counted once, every rating and its "
              "history equal their recomputation" + (f", {'all ' if not older and not pruned else ''}{replayed} "
                                                     "finished matches replay exactly" if replay else ""),
              markup=False)


@ledger_app.command("prune")
def ledger_prune(older_than: Annotated[float, typer.Option(
                     "--older-than", metavar="DAYS", show_default=False,
                     help="Prune the matches that finished more than DAYS days ago (fractions allowed; 0: every "
                          "finished match).")],
                 kind: Annotated[str, typer.Option(
                     "--kind", help="Which matches: ladder (the arena's, played around the clock), league, match "
                                    "(`play --record`) or all.")] = "ladder",
                 db: DbOpt = "cardarena.db"):
    """Drop the step and event logs of old finished matches, keep the rest, and give the space back.

    Kept: every result, seat, fault, rating change and summary, and each deal's seed, salt and
    commitment (`ratings recompute` gives the same numbers; `match verify` checks the deal). Gone:
    the play-by-play and the replay; `match show`, the pages and the API say the match is pruned.
    A match still running, and a rotation of a duplicate set still being played, is never
    pruned. Then SQLite is vacuumed (the file rewritten: it needs as much free disk again while
    it runs, and writers wait for it) and PostgreSQL's tables VACUUMed (their space reused by
    new matches). One line: the matches pruned and the ledger's bytes before and after."""
    if not math.isfinite(older_than):
        raise typer.BadParameter(f"must be a finite number of days, not {older_than!r}", param_hint="--older-than")
    if older_than < 0:
        raise typer.BadParameter("cannot be negative", param_hint="--older-than")
    if kind not in PRUNE_KINDS:
        raise typer.BadParameter(f"must be one of {', '.join(PRUNE_KINDS)}, not {kind!r}", param_hint="--kind")
    ledger = read_ledger(db)
    t0 = time.monotonic()
    before = ledger.storage_bytes()
    pruned = ledger.prune(older_than, None if kind == "all" else kind)
    ledger.reclaim()
    after = ledger.storage_bytes()
    size = ""
    if before is not None and after is not None:
        where = "the SQLite file, vacuumed" if ledger.engine.dialect.name == "sqlite" else "its PostgreSQL tables, vacuumed: the space is reused"
        size = f"; ledger {before:,} → {after:,} bytes ({where})"
    out.print(f"pruned {len(pruned.ids)} {PRUNE_KINDS[kind]} finished before {pruned.cutoff:%Y-%m-%d %H:%M} UTC "
              f"(step and event logs dropped; results, ratings and deals kept){size} in {time.monotonic() - t0:.1f} s",
              markup=False)
