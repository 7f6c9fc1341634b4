"""The JSON API under ``/api/v1/``: the same nouns as the pages, read-only, from the ledger.

=====================================  =========================================================
``/api/v1/games``                      the registered games, each with how many bots it rates
``/api/v1/games/{game}/ratings``       the game's rating table (rank, bot, μ, σ, μ − 3σ, …)
``/api/v1/bots/{name}``                a bot: ratings per game with their history, recent
                                       matches, faults by kind, forfeits, match durations
``/api/v1/leagues``                    the leagues with their progress
``/api/v1/leagues/{id}``               a league: settings, progress, standings (places with 95 %
                                       intervals, seats, head-to-head, duplicate sets), matches
``/api/v1/matches``                    matches, newest first; ``game``, ``bot``, ``league``,
                                       ``limit`` (1–500) filter them
``/api/v1/matches/{id}``               a match: seats, result, faults, rating changes, the
                                       play-by-play, the steps and the omniscient event log
=====================================  =========================================================

An unknown game, bot, league or match is a 404 whose ``detail`` says which; a query parameter of
the wrong type or out of range is FastAPI's 422. Each answer is built by one plain function of
the ledger (``game_list``, ``bot_detail``, …) that the pages render too, so a page never shows
what the API does not say.

What is public. A finished match is public in full (its seed, steps and omniscient log, as
Kaggle shows its episodes). A match not yet finished shows who sits where and its status, never
its seed (the seed deals every hand). A league shows its settings without the commands that
start its bots and the folder it ran in (the organizer's machine, not the league's result).
Nothing shows a token or a token's hash: no record the ledger returns holds one.

Latency. The ledger keeps no per-decision latency (the referee measures it during a run, and
``league run`` prints it); a bot's answer gives what the ledger has instead: the wall time of
its finished matches, p50 and p99.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query

from cardarena.ratings import LedgerError, standings
from cardarena.ratings.models import FINISHED

from ..games import UnknownGame, games as all_games, get as get_game
from .app import ledger_of

router = APIRouter(prefix="/api/v1", tags=["api"])
Ledger = Annotated[Any, Depends(ledger_of)]
ID_MAX = 2 ** 63 - 1  # ids are SQL BIGINTs: a larger number is a bad parameter (422), not a crash
MatchId = Annotated[int, Path(ge=1, le=ID_MAX)]
LeagueId = Annotated[int, Path(ge=1, le=ID_MAX)]
LeagueQuery = Annotated[int | None, Query(ge=1, le=ID_MAX)]
Limit = Annotated[int, Query(ge=1, le=500)]

#: League settings that describe the organizer's machine, not the league: never shown.
PRIVATE_SETTINGS = ("commands", "workdir")
RECENT = 20  # matches listed on a bot's and a league's page


def not_found(e: Exception) -> HTTPException:
    return HTTPException(status_code=404, detail=str(e))


def check_game(game: str) -> type:
    try:
        return get_game(game)
    except UnknownGame as e:
        raise not_found(e) from None


def percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank ``q`` percentile (0 < q ≤ 100), or None without values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


# ----------------------------------------------------------------------------- the answers

def match_json(m) -> dict:
    """A listed match; the seed only once it is finished (it deals every hand)."""
    d = m.to_json()
    if m.status != FINISHED:
        d["seed"] = None
    return d


def game_list(ledger) -> list[dict]:
    rated = Counter(r.game for r in ledger.ratings())
    return [{"id": gid, "title": cls.title, "players": [cls.min_players, cls.max_players], "summary": cls.summary,
             "rated_bots": rated.get(gid, 0)} for gid, cls in all_games().items()]


def game_ratings(ledger, game: str) -> list[dict]:
    check_game(game)
    return [r.to_json() for r in ledger.ratings(game)]


def history_json(changes) -> list[dict]:
    """A bot's rating after each of its rated matches of one game."""
    return [{"mu": c.mu, "sigma": c.sigma, "conservative": c.mu - 3 * c.sigma} for c in changes if c.rated]


def bot_detail(ledger, name: str) -> dict:
    try:
        info = ledger.bot(name)
        recent = ledger.matches(bot=name, limit=RECENT)
    except LedgerError as e:
        raise not_found(e) from None
    ratings = [r for r in ledger.ratings() if r.bot == name]
    by_kind: Counter = Counter()
    faults = forfeits = 0
    durations = []
    for seat, n, forfeited, details, duration in ledger.bot_seats(name):
        faults += n or 0
        forfeits += bool(forfeited)
        by_kind.update(f["kind"] for f in (details or {}).get("faults", [])
                       if f["seat"] == seat and f["kind"] != "forfeit")
        if duration is not None:
            durations.append(duration)
    return {
        "bot": info.to_json(),
        "ratings": [{**r.to_json(), "history": history_json(ledger.rating_history(name, r.game))} for r in ratings],
        "recent_matches": [match_json(m) for m in recent],
        "faults": faults, "faults_by_kind": dict(sorted(by_kind.items())), "forfeits": forfeits,
        "latency": None,  # not in the ledger (module docstring)
        "match_seconds": {"matches": len(durations), "p50": percentile(durations, 50),
                          "p99": percentile(durations, 99)},
    }


def league_json(info) -> dict:
    d = info.to_json()
    d["settings"] = {k: v for k, v in d["settings"].items() if k not in PRIVATE_SETTINGS}
    return d


def league_list(ledger) -> list[dict]:
    return [league_json(lg) for lg in ledger.leagues()]


def league_detail(ledger, league_id: int) -> dict:
    try:
        info = ledger.league(league_id)
        results = ledger.league_results(league_id)
    except LedgerError as e:
        raise not_found(e) from None
    return {"league": league_json(info), "standings": standings(results, info.settings.get("bots")).to_json(),
            "recent_matches": [match_json(m) for m in ledger.matches(league_id=league_id, limit=RECENT)]}


def match_list(ledger, game: str | None = None, bot: str | None = None, league: int | None = None,
               limit: int = 50) -> list[dict]:
    if game is not None:
        check_game(game)
    try:
        if league is not None:
            ledger.league(league)
        return [match_json(m) for m in ledger.matches(league_id=league, game=game, bot=bot, limit=limit)]
    except LedgerError as e:
        raise not_found(e) from None


def play_by_play(m) -> list[str]:
    """The text of `cardarena match show` (omniscient: a finished match is public in full)."""
    from ..replay import render_match
    return render_match(m)


def match_detail(ledger, match_id: int) -> dict:
    try:
        m = ledger.match(match_id)
    except LedgerError as e:
        raise not_found(e) from None
    d = match_json(m)
    d["seats"] = [{"seat": s, "bot": b, "score": m.scores[s], "place": m.places[s], "faults": m.faults[s],
                   "forfeited": m.forfeited[s]} for s, b in enumerate(m.bots)]
    d["faults"] = list(m.result_details.get("faults", []))
    d["rating_changes"] = [{**c.to_json(), "delta_mu": c.delta_mu} for c in m.rating_changes]
    d["duration_s"] = m.duration_s
    finished = m.status == FINISHED
    d["steps"] = m.steps if finished else []
    d["events"] = m.events if finished else []
    d["play_by_play"] = play_by_play(m) if finished else []
    return d


# ----------------------------------------------------------------------------- the routes

@router.get("/games")
def api_games(ledger: Ledger) -> list[dict]:
    """The registered games, each with how many bots are rated in it."""
    return game_list(ledger)


@router.get("/games/{game}/ratings")
def api_ratings(game: str, ledger: Ledger) -> list[dict]:
    """A game's rating table, best μ − 3σ first."""
    return game_ratings(ledger, game)


@router.get("/bots/{name}")
def api_bot(name: str, ledger: Ledger) -> dict:
    """A bot: ratings per game with history, recent matches, faults by kind, forfeits."""
    return bot_detail(ledger, name)


@router.get("/leagues")
def api_leagues(ledger: Ledger) -> list[dict]:
    """Every league with its progress."""
    return league_list(ledger)


@router.get("/leagues/{league_id}")
def api_league(league_id: LeagueId, ledger: Ledger) -> dict:
    """A league: settings, progress, standings, head-to-head, duplicate sets, recent matches."""
    return league_detail(ledger, league_id)


@router.get("/matches")
def api_matches(ledger: Ledger, game: str | None = None, bot: str | None = None, league: LeagueQuery = None,
                limit: Limit = 50) -> list[dict]:
    """Matches, newest first."""
    return match_list(ledger, game, bot, league, limit)


@router.get("/matches/{match_id}")
def api_match(match_id: MatchId, ledger: Ledger) -> dict:
    """A match: seats, result, faults, rating changes, play-by-play, steps and event log."""
    return match_detail(ledger, match_id)
