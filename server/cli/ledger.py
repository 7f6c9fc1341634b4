"""``cardarena ledger …``: check the ledger (complete, counted once, ratings equal to their
recomputation, with ``--replay`` every match log) and upgrade its schema."""

import time
from pathlib import Path
from typing import Annotated

import typer

from .app import CliError, DbOpt, ledger_app, out
from .common import _count_bar, read_ledger
from .matches import _replay, _say_older


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
    if replay:
        ids = ledger.match_ids("finished")
        bar, update = _count_bar("replaying the matches")
        with bar:
            for k, mid in enumerate(ids):
                problems += [f"match {mid}: {p}" for p in _replay(ledger.match(mid), older)]
                replayed += 1
                update(k + 1, len(ids))
        replayed -= len(older)
        _say_older(older)
    m = counts["matches"]
    summary = (f"{sum(m.values())} matches ({m['finished']} finished, {m['failed']} failed, {m['running']} running, "
               f"{m['scheduled']} scheduled), {counts['bots']} bots, {counts['leagues']} league{'s' if counts['leagues'] != 1 else ''}")
    if problems:
        for p in problems:
            out.print(p, markup=False)
        raise CliError(f"the ledger has {len(problems)} problem{'s' if len(problems) > 1 else ''} ({summary})")
    out.print(f"ledger OK: {summary}; every finished match is complete and counted once, every rating and its "
              "history equal their recomputation" + (f", {'all ' if not older else ''}{replayed} finished matches replay "
                                                     "exactly" if replay else ""),
              markup=False)
