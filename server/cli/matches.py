"""``cardarena match …``: list, show (play by play), export and verify recorded matches."""

import json
import sys
from typing import Annotated, Optional

import typer

from .app import MAX_INT, CliError, DbOpt, match_app, out
from .common import _count_bar, caption, check_game, read_ledger


@match_app.command("list")
def match_list(game: Annotated[Optional[str], typer.Option("--game")] = None,
               league: Annotated[Optional[int], typer.Option("--league", min=1, max=MAX_INT)] = None,
               limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_INT - 1)] = 50, db: DbOpt = "cardarena.db"):
    """The latest matches, newest first: id, game, status, bots with places.

    The header names the ledger and says when --limit cut the list (on stderr: the rows on
    stdout stay one match a line, tab-separated, for scripts)."""
    if game is not None:
        check_game(game)
    ledger = read_ledger(db)
    found = ledger.matches(league_id=league, game=game, limit=limit + 1)
    shown = found[:limit]
    if len(found) > limit:
        total = None
        if game is None:
            counts = ledger.league(league).counts if league is not None else ledger.counts()["matches"]
            total = sum(counts.values())
        size = f"the latest {limit} of {total:,}" if total is not None else f"the latest {limit}"
        caption(ledger, f"{size} matches shown; --limit N shows more")
    else:
        caption(ledger, f"{len(shown)} match{'es' if len(shown) != 1 else ''}")
    if shown:
        sys.stderr.write("id\tgame\tstatus\tseats (bot #place)\n")
    for m in shown:
        seats = "  ".join(f"{b}" + (f" #{p}" if p else "") for b, p in zip(m.bots, m.places))
        print(f"{m.id}\t{m.game}\t{m.status}\t{seats}")


def _load_match(db: str, match_id: int):
    return read_ledger(db, f"match {match_id}").match(match_id)


@match_app.command("show")
def match_show(match_id: Annotated[int, typer.Argument(min=1, max=MAX_INT, help="Match id (see `cardarena match list`).")],
               seat: Annotated[Optional[int], typer.Option("--seat", help="Show only what this seat saw.")] = None,
               db: DbOpt = "cardarena.db"):
    """A recorded match, play by play (omniscient, or as one seat saw it); a pruned match (`ledger
    prune`) shows its seats and result, and the day its step log was pruned."""
    m = _load_match(db, match_id)
    if seat is not None and not 0 <= seat < len(m.bots):
        raise typer.BadParameter(f"match {match_id} has seats 0–{len(m.bots) - 1}", param_hint="--seat")
    if m.status == "finished" and not m.deal_spent:
        raise CliError(f"match {m.id} shares its deal with rotations of its duplicate set still to finish: "
                       "it is shown once the whole set is finished")
    from ..replay import render_match
    for line in render_match(m, seat):
        out.print(line, markup=False)


@match_app.command("export")
def match_export(match_id: Annotated[int, typer.Argument(min=1, max=MAX_INT, help="Match id.")], db: DbOpt = "cardarena.db"):
    """A recorded match as JSON: seats, options, schedule place, result, faults, rating changes,
    the deal's commitment; once its deal is spent, the seed, salt, steps and the omniscient event
    log (each event with the seats that saw it; null: everyone)."""
    m = _load_match(db, match_id)
    sys.stdout.write(json.dumps(m.to_json(), ensure_ascii=False, indent=1) + "\n")


@match_app.command("verify")
def match_verify(match_id: Annotated[Optional[int], typer.Argument(min=1, max=MAX_INT, help="Match id; or give --league.")] = None,
                 league: Annotated[Optional[int], typer.Option("--league", min=1, max=MAX_INT, help="Verify every finished match of this league.")] = None,
                 db: DbOpt = "cardarena.db"):
    """Check a recorded match's deal against its commitment, replay it from its seed and steps, and
    check the recorded events and result. A pruned match (`ledger prune`) has no steps to replay:
    its deal is checked, and it says so (exit 0 when the deal matches)."""
    from ..league import verify_match
    if (match_id is None) == (league is None):
        raise typer.BadParameter("give a match id or --league, one of them", param_hint="MATCH_ID")
    ledger = read_ledger(db, f"match {match_id}" if match_id is not None else f"league {league}")
    if match_id is not None:
        m = _load_match(db, match_id)
        problems = verify_match(m)
        if problems:
            for p in problems:
                out.print(f"match {m.id}: {p}", markup=False)
            raise CliError(f"match {m.id} does not verify: {len(problems)} difference{'s' if len(problems) > 1 else ''}")
        if m.pruned_at is not None:
            from ..replay import pruned_on
            dealt = (f"seed {m.seed} and salt {m.deal_salt} give its deal commitment" if m.deal_commitment
                     else "it was recorded without a deal commitment")
            out.print(f"match {m.id} is pruned: its step log was pruned on {pruned_on(m)}, so it cannot be replayed; "
                      f"{dealt}; its result is kept (places {' '.join(map(str, m.places))})", markup=False)
            return
        seed = f"seed {m.seed}" if m.deal_spent else "its seed (secret: its deal is still in play)"
        dealt = " dealt as committed;" if m.deal_commitment else " (recorded without a deal commitment);"
        out.print(f"match {m.id} verified:{dealt} {seed} and its {len(m.steps)} steps replay the {len(m.events)} "
                  f"recorded events and the result (places {' '.join(map(str, m.places))}) exactly", markup=False)
        return
    ids = [m.id for m in ledger.league_matches(league, "finished")]
    bad = 0
    older: list[int] = []
    pruned: list[int] = []
    bar, update = _count_bar(f"verifying league {league}")
    with bar:
        for k, mid in enumerate(ids):
            problems = _replay(ledger.match(mid), older, pruned)
            if problems:
                bad += 1
                for p in problems:
                    out.print(f"match {mid}: {p}", markup=False)
            update(k + 1, len(ids))
    _say_older(older)
    _say_pruned(pruned)
    if bad:
        raise CliError(f"league {league}: {bad} of {len(ids)} finished matches do not verify")
    done = len(ids) - len(older) - len(pruned)
    out.print(f"league {league}: {'all ' if not older and not pruned else ''}{done} finished matches verified (their seeds and steps "
              "replay the recorded events and results exactly)", markup=False)


def _replay(m, older: list[int], pruned: list[int] | None = None) -> list[str]:
    """``verify_match``; a match recorded by another rules engine version is noted in ``older``, a
    pruned one (only its deal checked) in ``pruned``."""
    from ..league import NotReplayable, verify_match
    if m.pruned_at is not None and pruned is not None:
        pruned.append(m.id)
    try:
        return verify_match(m)
    except NotReplayable:
        older.append(m.id)
        return []


def _say_pruned(pruned: list[int]) -> None:
    if pruned:
        shown = ", ".join(map(str, pruned[:10])) + (", …" if len(pruned) > 10 else "")
        out.print(f"{len(pruned)} finished matches ({shown}) are pruned (`ledger prune`): their step logs are gone, "
                  "so they are not replayed: only their deals are checked (against their commitments, where recorded)", markup=False)


def _say_older(older: list[int]) -> None:
    if older:
        shown = ", ".join(map(str, older[:10])) + (", …" if len(older) > 10 else "")
        out.print(f"{len(older)} finished matches ({shown}) were recorded by another version of their game's "
                  "rules engine and are not replayed (`match verify ID` says which)", markup=False)
