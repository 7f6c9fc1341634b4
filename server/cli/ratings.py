"""``cardarena ratings``: the rating table (of the ledger, or of a ``--server``), and ``ratings
recompute``, which rebuilds it from the recorded matches.

A ``--db`` that is a SQLite file is read with the plain driver (``cardarena.ratings.table``:
no SQLAlchemy, SQLModel or Alembic, most of a new process's time otherwise); an SQLAlchemy URL,
or a file that read refuses (another schema version, a damaged file), opens the ledger as every
other command does, which answers or says why not in its own words.

``ratings --explain BOT [--game G] [--last N]`` opens the ledger and explains BOT's last rated
matches (:mod:`cardarena.ratings.explain`, imported only on that path)."""

import sys
import time
from typing import Annotated, Optional

import typer

from .app import MAX_INT, CliError, DbOpt, ServerOpt, out, ratings_app
from .common import _count_bar, admin_stub, caption, check_game, ledger_file, ledger_name, read_ledger, rpc


@ratings_app.callback(invoke_without_command=True)
def ratings(ctx: typer.Context,
            game: Annotated[Optional[str], typer.Option("--game", help="Only this game.")] = None,
            fmt: Annotated[str, typer.Option("--format", help="table, json, csv or markdown")] = "table",
            explain: Annotated[Optional[str], typer.Option(
                "--explain", metavar="BOT",
                help="Each recent rated match of BOT: places, opponents, the rating change and why.")] = None,
            last: Annotated[str, typer.Option("--last", metavar="N",  # a str: an int option imports pydantic (app.py)
                                              help="With --explain: this many matches, newest first.")] = "10",
            db: DbOpt = "cardarena.db", server: ServerOpt = None):
    """The rating table: rank, bot, μ, σ, μ − 3σ, matches, wins, mean place.

    `cardarena ratings --explain BOT` tells what each of BOT's recent rated matches did to its
    rating, and why. `cardarena ratings recompute` rebuilds the table from the recorded matches.
    """
    if ctx.invoked_subcommand is not None:
        return
    if explain is not None:
        return _explain(explain, game, last, fmt, db, server)
    from cardarena.ratings.report import format_ratings
    from cardarena.ratings.table import RatingRow
    if fmt not in ("table", "json", "csv", "markdown"):
        raise typer.BadParameter("use table, json, csv or markdown", param_hint="--format")
    if game:
        check_game(game)
    if server:
        from cardarena.v1 import admin_pb2
        stub, md = admin_stub(server)
        reply = rpc(stub.Ratings, admin_pb2.RatingsRequest(game=game or ""), metadata=md)
        rows = [RatingRow(r.rank, r.bot, r.game, r.mu, r.sigma, r.conservative, r.matches, r.wins,
                          r.mean_place) for r in reply.rows]
    else:
        where, rows = _ledger_ratings(db, game)
        if fmt in ("table", "markdown"):
            caption(where, f"ratings of {game or 'every game'}")
    text = format_ratings(rows, fmt)
    if fmt == "table":  # as it is, not through rich: thousands of rows print at once, a name is never markup
        sys.stdout.write(text + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _explain(bot: str, game: str | None, last: str, fmt: str, db: str, server: str | None) -> None:
    """``ratings --explain BOT``: the explanations of :mod:`cardarena.ratings.explain` (imported
    here: the plain table stays light), as text or JSON."""
    if fmt not in ("table", "json"):
        raise typer.BadParameter("--explain prints table or json", param_hint="--format")
    if server:
        raise typer.BadParameter("--explain reads a ledger: give --db, not --server", param_hint="--explain")
    if not last.strip().isdigit() or not 1 <= int(last) <= MAX_INT:
        raise typer.BadParameter(f"give a whole number of matches from 1 to {MAX_INT}, not {last!r}", param_hint="--last")
    last = int(last)
    if game:
        check_game(game)
    import json

    from cardarena.ratings import LedgerError
    from cardarena.ratings.explain import explain_all, format_text, read
    ledger = read_ledger(db)
    try:
        explanations = explain_all(read(ledger, bot, game, last), bot)
    except LedgerError as e:
        raise CliError(f"{e} in the ledger {ledger_name(ledger)}") from None
    if fmt == "json":
        sys.stdout.write(json.dumps([e.to_json() for e in explanations], ensure_ascii=False, indent=1) + "\n")
        return
    caption(ledger, f"the last {len(explanations)} rated matches of {bot}" + (f" in {game}" if game else "")
            + ", newest first")
    if not explanations:
        sys.stdout.write(f"{bot} has no rated matches" + (f" of {game}" if game else "") + "\n")
        return
    sys.stdout.write(format_text(explanations) + "\n")


def _ledger_ratings(db: str, game: str | None):
    """What the caption names (the file's path, or the Ledger opened) and the rating table: a
    SQLite file through the light read, else (or when that read refuses) through the ledger
    (module docstring)."""
    path = ledger_file(db) if db.strip() and "://" not in db else None
    if path is not None and path.is_file():
        from cardarena.ratings.table import read_sqlite
        rows = read_sqlite(path, game)
        if rows is not None:
            return str(path.resolve()), rows
    ledger = read_ledger(db)
    return ledger, ledger.ratings(game)


@ratings_app.command("recompute")
def ratings_recompute(game: Annotated[Optional[str], typer.Option("--game", help="Only this game.")] = None,
                      db: DbOpt = "cardarena.db"):
    """Rebuild the ratings and their history from the recorded matches, in recording order."""
    if game:
        check_game(game)
    ledger = read_ledger(db)
    before = {(r.game, r.bot): (r.mu, r.sigma, r.matches) for r in ledger.ratings(game)}
    t = time.perf_counter()
    bar, update = _count_bar("replaying the matches")
    with bar:
        replayed = ledger.recompute(game, progress=update)
    after = {(r.game, r.bot): (r.mu, r.sigma, r.matches) for r in ledger.ratings(game)}
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    scope = f"{game}" if game else "every game"
    verdict = ("the stored ratings were already exact" if not changed else
               f"{len(changed)} rating{'s' if len(changed) > 1 else ''} changed: "
               + ", ".join(f"{b} in {g}" for g, b in changed[:10]) + (" …" if len(changed) > 10 else ""))
    out.print(f"ratings of {scope} recomputed from {replayed} matches in {time.perf_counter() - t:.1f} s; {verdict}",
              markup=False)
