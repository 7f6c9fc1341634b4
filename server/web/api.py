"""The JSON API under ``/api/v1/``: the same nouns as the pages, read-only, from the ledger.

Routes: ``/api/v1/games``, ``/api/v1/games/{game}/ratings``, ``/api/v1/bots/{name}``,
``/api/v1/leagues``, ``/api/v1/leagues/{id}``, ``/api/v1/matches``, ``/api/v1/matches/{id}``
and ``/api/v1/ladders``. Each answer is built by one plain function of the ledger
(``game_list``, ``bot_detail``, …) that the pages render too, so a page never shows what the API
does not say. An unknown game, bot, league or match is a 404 whose ``detail`` says which; a
query parameter of the wrong type or out of range is FastAPI's 422.

What is public: a match whose deal is spent is public in full. Any other match shows who sits
where, its status, its deal's commitment and, once finished, its result: never its seed, salt
or log. A league hides the commands and folder of its bots, and its secret or seed until it has
ended. A hosted bot's versions show their state, dates, matches and ratings (:mod:`.versions`),
never their files, commands, build logs or match logs (its owner's: :mod:`.owner`). Nothing
shows a token or a token's hash.

Speed: p99 under 20 ms an API call, 50 ms a page, on 100,000 matches among 1,000 bots
(``bench/web.py``). Every answer is a bounded number of indexed queries, none per row. What is
kept in memory is never stale: it is kept under what it shows (the ledger's fingerprint
``Ledger.version``, a bot's count of rated matches, a finished match's id), and a match not yet
finished is never kept. What the referee and the arena hold is read on the event loop (the
``async`` routes), the ledger in the thread pool.

Design notes and measurements: docs/web.md (api).
"""
from __future__ import annotations

import math
import threading
import weakref
from array import array
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import Response
from pydantic_core import to_json
from starlette.concurrency import run_in_threadpool

from cardarena.ratings import LedgerError, standings
from cardarena.ratings.models import FINISHED, KINDS

from .. import latency as latencies
from ..games import UnknownGame, games as all_games, get as get_game
from . import versions
from .deps import ledger_of

router = APIRouter(prefix="/api/v1", tags=["api"])


async def served_ledger(request: Request):
    """The ledger the app serves (``deps.ledger_of``) as an ``async`` dependency: FastAPI runs a
    plain function's in a thread of the pool, a hop that costs a request as much as a small query;
    this one is read on the event loop."""
    return ledger_of(request)


Ledger = Annotated[Any, Depends(served_ledger)]
ID_MAX = 2 ** 63 - 1  # past SQL's 64-bit integers a number is a bad parameter (422); under it, one the
# ledger cannot hold (ratings.ledger.ID_MAX, 32 bits on PostgreSQL) is "no match N" (404), never a crash
MatchId = Annotated[int, Path(ge=1, le=ID_MAX)]
LeagueId = Annotated[int, Path(ge=1, le=ID_MAX)]
LeagueQuery = Annotated[int | None, Query(ge=1, le=ID_MAX)]
Limit = Annotated[int, Query(ge=1, le=500)]
RatingsLimit = Annotated[int, Query(ge=1, le=1000)]
Offset = Annotated[int, Query(ge=0, le=ID_MAX)]
KindQuery = Annotated[Literal[KINDS] | None, Query(description="ladder, league or match")]
NAME_QUERY_MAX = 100  # characters of a name filter (a bot's name has at most 64)
NameQuery = Annotated[str | None, Query(max_length=NAME_QUERY_MAX,
                                        description="only the bots whose name holds this text, in any case")]

#: League settings that describe the organizer's machine, not the league: never shown.
PRIVATE_SETTINGS = ("commands", "workdir")
RECENT = 20  # matches listed on a bot's and a league's page
LINE_POINTS = 200  # at most, in a bot's rating history per game (its page's chart)
SPARK_POINTS = 40  # at most, in a leaderboard's line
RATINGS_LIMIT = 100  # rows of /api/v1/games/{game}/ratings unless ``limit`` says otherwise


def not_found(e: Exception) -> HTTPException:
    return HTTPException(status_code=404, detail=str(e))


def check_game(game: str) -> type:
    try:
        return get_game(game)
    except UnknownGame as e:
        raise not_found(e) from None


class Tables:
    """The rating tables of every game as of one ledger fingerprint (docs/web.md, Speed)."""

    def __init__(self, version: tuple, rows: list):
        self.version = version
        self.by_game: dict[str, list[dict]] = defaultdict(list)  # rows as JSON, made once
        self.by_bot: dict[str, list[dict]] = defaultdict(list)  # the same dicts (never changed:
        for r in rows:  # readers copy them), no RatingRow kept for the collector to walk
            row = r.to_json()
            self.by_game[r.game].append(row)
            self.by_bot[r.bot].append(row)


_tables: "weakref.WeakKeyDictionary[Any, Tables]" = weakref.WeakKeyDictionary()
_tables_lock = threading.Lock()


def tables(ledger, version: tuple | None = None) -> Tables:
    """The ledger's rating tables, read again only when its fingerprint (``version``, read here
    unless the caller has just read it) has changed."""
    version = ledger.version() if version is None else version
    with _tables_lock:  # one reader rebuilds them; the others wait for it rather than repeat it
        cached = _tables.get(ledger)
        if cached is None or cached.version != version:
            cached = _tables[ledger] = Tables(version, ledger.ratings())
        return cached


class KeptByCount:
    """Values kept per ledger, each under a count that changes whenever the value does (a bot's
    rated matches in a game, its finished seats), the least recently used dropped past ``limit``
    per ledger: a value asked for with another count than it was kept under is read again."""

    def __init__(self, limit: int):
        self.limit = limit
        self._kept: "weakref.WeakKeyDictionary[Any, OrderedDict]" = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, ledger, key: Any, count: int) -> Any:
        """The value kept under ``key`` and ``count``, or None."""
        with self._lock:
            cache = self._kept.get(ledger)
            kept = None if cache is None else cache.get(key)
            if kept is None or kept[0] != count:
                return None
            cache.move_to_end(key)
            return kept[1]

    def put(self, ledger, items: Iterable[tuple[Any, int, Any]]) -> None:
        """Keep each value of ``items`` (key, count, value)."""
        with self._lock:
            cache = self._kept.setdefault(ledger, OrderedDict())
            for key, count, value in items:
                cache[key] = (count, value)
                cache.move_to_end(key)
            while len(cache) > self.limit:
                cache.popitem(last=False)


class Line:
    """A rating line (``Ledger.rating_lines``: (μ, σ) after rated matches, oldest first), kept
    compact and drawn once: its points in one array of floats (μ, σ, μ, σ, …), which the
    garbage collector never walks (kept as lists of tuples, 5,000 lines of 200 points added ~23 ms
    to each of its full passes: the pages' p99), its history's JSON encoded once
    (:meth:`history_text`, for the bot's API answer) and its charts drawn once (:meth:`drawn`).
    A line never changes: a new rating makes a new line. Iterated, it gives its (μ, σ) pairs."""

    __slots__ = ("_points", "_text", "_drawn")

    def __init__(self, points: Iterable[tuple[float, float]] = ()):
        self._points = array("d", [v for point in points for v in point])

    def __len__(self) -> int:
        return len(self._points) // 2

    def __iter__(self):
        return zip(self._points[::2], self._points[1::2])

    def history_text(self) -> bytes:
        """``encoded(history_json(self))``, encoded once."""
        try:
            return self._text
        except AttributeError:
            self._text = encoded(history_json(self))
            return self._text

    def drawn(self, draw: Callable[..., Any], title: str, **options: Any) -> Any:
        """``draw(history_json(self), title, **options)`` (a chart of :mod:`.charts`), drawn once
        per chart, title and options."""
        try:
            kept = self._drawn
        except AttributeError:
            kept = self._drawn = {}
        key = (draw, title, *sorted(options.items()))
        chart = kept.get(key)
        if chart is None:
            chart = kept[key] = draw(history_json(self), title, **options)
        return chart


LINES_KEPT = 20_000  # rating lines kept per ledger, the least recently used dropped first
#: (bot, game, points) → its line, kept under the bot's rated matches in the game
_lines = KeptByCount(LINES_KEPT)


def lines(ledger, wanted: Sequence[tuple[str, str, int]], points: int) -> dict[tuple[str, str], Line]:
    """The rating lines of (bot, game) with ``matches`` rated matches each (``Ledger.rating_lines``,
    at most ``points`` points). A line changes only when its bot plays that game, so it is kept
    under its number of matches and read again, in one query for all that changed, only then."""
    out, missing = {}, []
    for bot, game, matches in wanted:
        kept = _lines.get(ledger, (bot, game, points), matches)
        if kept is not None:
            out[bot, game] = kept
        else:
            missing.append((bot, game, matches))
    if missing:
        games = {g for _, g, _ in missing}
        read = ledger.rating_lines(games.pop() if len(games) == 1 else None, {b for b, _, _ in missing}, points)
        for bot, game, _ in missing:
            out[bot, game] = Line(read.get((bot, game), ()))
        _lines.put(ledger, (((bot, game, points), matches, out[bot, game]) for bot, game, matches in missing))
    return out


SECONDS_KEPT = 20_000  # bots' match_seconds kept per ledger, the least recently used dropped first
#: bot name → its ``match_seconds``, kept under its finished seats
_seconds = KeptByCount(SECONDS_KEPT)


def match_seconds(ledger, name: str, seats: int) -> dict:
    """A bot's ``match_seconds`` (its finished matches' count and wall-time p50 and p99, from
    ``Ledger.match_durations``), kept under its number of finished ``seats`` (its summaries'):
    a finished seat never changes and every new one adds to that count, so what is kept is
    read again only when the bot has finished another match."""
    found = _seconds.get(ledger, name, seats)
    if found is None:
        durations = ledger.match_durations(name)
        found = {"matches": len(durations), "p50": percentile(durations, 50), "p99": percentile(durations, 99)}
        _seconds.put(ledger, [(name, seats, found)])
    return found


#: per ledger: what and all it shows → an encoded answer (a finished match's, a leaderboard
#: page's), least recently used first
_answers: "weakref.WeakKeyDictionary[Any, OrderedDict]" = weakref.WeakKeyDictionary()
_answers_lock = threading.Lock()
ANSWERS_KEPT = 64 * 2 ** 20  # bytes of answers kept per ledger, the least recently used dropped first


def kept_answer(ledger, key: tuple) -> bytes | None:
    """An answer kept before (:func:`keep_answer`; ``key``: what it is and all it shows), or None."""
    with _answers_lock:
        cache = _answers.get(ledger)
        body = None if cache is None else cache.get(key)
        if body is not None:
            cache.move_to_end(key)
        return body


def keep_answer(ledger, key: tuple, body: bytes) -> None:
    """Keep an encoded answer under a key that says all it shows (docs/web.md, Speed): a
    finished match's (what, its id: a finished match never changes; an unfinished one must never
    be kept), a leaderboard page's (its page, the ledger's fingerprint, its bots' states and the
    ladder: ``pages._board``)."""
    with _answers_lock:
        cache = _answers.setdefault(ledger, OrderedDict())
        cache[key] = body
        cache.move_to_end(key)
        size = sum(map(len, cache.values()))
        while size > ANSWERS_KEPT and len(cache) > 1:
            size -= len(cache.popitem(last=False)[1])


def forget_answers(ledger, keys: Iterable[tuple]) -> None:
    """Drop the answers kept under these keys (a match's whose logs were just pruned)."""
    with _answers_lock:
        cache = _answers.get(ledger)
        for key in keys if cache is not None else ():
            cache.pop(key, None)


def answer(content: Any) -> Response:
    """An API answer, encoded straight to JSON (:func:`encoded`; docs/web.md, Speed)."""
    return Response(encoded(content), media_type="application/json")


def encoded(content: Any) -> bytes:
    """``content`` as compact UTF-8 JSON, by pydantic-core (FastAPI's own encoder, in Rust: a
    bot's answer 2.1 ms -> 0.3 ms, bench/web.py's ledger). The same JSON as the standard
    library's ``json.dumps(content, ensure_ascii=False, separators=(",", ":"))`` but that an
    exponent has no leading zero (``1e-7``, not ``1e-07``) and a NaN or infinity is ``null``."""
    return to_json(content)


def spliced(content: Mapping[str, Any], raw: Mapping[str, bytes]) -> bytes:
    """The dict ``content`` encoded as :func:`encoded` does, but for the values of the keys of
    ``raw``, given already as JSON text; the keys in their order."""
    parts, run = [], {}
    for k, v in content.items():
        if k in raw:
            if run:
                parts.append(encoded(run)[1:-1])
                run = {}
            parts.append(b"%s:%s" % (encoded(k), raw[k]))
        else:
            run[k] = v
    if run:
        parts.append(encoded(run)[1:-1])
    return b"{%s}" % b",".join(parts)


def percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank ``q`` percentile (0 < q ≤ 100), or None without values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


# ----------------------------------------------------------------------------- the answers

def match_json(m) -> dict:
    """A listed match (a MatchInfo, or its JSON as a listing of the ledger gives it: ``as_json``):
    the deal's commitment always, its seed and salt only once the deal is spent (``MatchInfo.to_json``)."""
    return m if isinstance(m, dict) else m.to_json()


def game_list(ledger) -> list[dict]:
    found = tables(ledger).by_game
    return [{"id": gid, "title": cls.title, "players": [cls.min_players, cls.max_players], "summary": cls.summary,
             "rated_bots": len(found.get(gid, ()))} for gid, cls in all_games().items()]


def named(rows: Sequence[dict], q: str | None) -> Sequence[dict]:
    """The rows of the bots whose name holds ``q``, in any case (all of them without one)."""
    q = (q or "").strip().casefold()
    return [r for r in rows if q in r["bot"].casefold()] if q else rows


def game_ratings(ledger, game: str, limit: int | None = None, offset: int = 0,
                 version: tuple | None = None, q: str | None = None) -> list[dict]:
    """The game's rating table, best first: ``limit`` rows (all without one) from ``offset``
    (as of the ledger's fingerprint ``version`` if the caller has just read it: :func:`tables`);
    ``q``: only the bots whose name holds it (:func:`named`), ranked as in the whole table."""
    check_game(game)
    rows = named(tables(ledger, version).by_game.get(game, []), q)
    return [dict(r) for r in rows[offset:None if limit is None else offset + limit]]  # copies: pages add to them


def rated_bots(ledger, game: str, version: tuple | None = None, q: str | None = None) -> int:
    """How many bots the game's rating table holds (its length, for paging; ``version`` and
    ``q`` as for :func:`game_ratings`)."""
    return len(named(tables(ledger, version).by_game.get(game, ()), q))


def history_json(line) -> list[dict]:
    """A rating line (``Ledger.rating_lines``: (μ, σ) after rated matches, oldest first)."""
    return [{"mu": mu, "sigma": sigma, "conservative": mu - 3 * sigma} for mu, sigma in line]


def line_span(matches: int, points: int, most: int | None = None) -> dict[str, int]:
    """Which rated matches a rating line's points are (``first``, the first point's match number,
    and ``every``, the step between two), as ``Ledger.rating_lines`` thins a line of ``matches``
    rated matches to at most ``most`` points (:data:`LINE_POINTS`): every k-th counted back from
    the last, k = ⌈matches / most⌉; a line it does not match is taken as matches 1, 2, …"""
    every = max(1, -(-matches // (most or LINE_POINTS)))
    first = matches - (points - 1) * every
    return {"first": first, "every": every} if points and first >= 1 else {"first": 1, "every": 1}


def latency_json(counts: Mapping[int, int], matches: int, not_recorded: int) -> dict:
    """The decision-latency histogram of ``matches`` seats merged (:func:`latencies.merge`), as
    the API says it (docs/web.md, Latency)."""
    return {"decisions": sum(counts.values()), "p50": latencies.quantile(counts, 0.5),
            "p99": latencies.quantile(counts, 0.99), "matches": matches, "not_recorded": not_recorded}


def live_states(request: Request, names: Sequence[str]) -> dict[str, dict] | None:
    """What this process knows of the bots now, read on the event loop (docs/web.md, A
    bot's state): the arena's snapshot, or without ladders who the referee seats and who is
    connected; None under ``cardarena web``. Behind a spectator delay (``serve
    --spectator-delay``) a bot plays while a match of it is shown as being played."""
    from .live import delayed
    arena = request.app.state.arena
    shown = delayed(request)
    if arena is not None:
        from ..ladder import snapshot
        found = snapshot(arena, names)
        return found if shown is None else _as_shown(found, [tl for tl in shown if tl.ladder], arena.referee)
    referee = request.app.state.referee
    if referee is None:
        return None
    seated = Counter(b for run in list(referee.runs.values()) for b in set(run.bots))
    found = {n: {"state": "playing" if seated[n] else "idle" if referee.is_connected(n) else "away",
                 "matches_now": seated[n]} for n in names}
    return found if shown is None else _as_shown(found, shown, referee)


def _as_shown(found: dict[str, dict], shown: Sequence, referee) -> dict[str, dict]:
    """The bots' states with playing and their matches now as of the spectator delay: ``shown``,
    the matches being played then (``live.delayed``)."""
    seated = Counter(b for tl in shown for b in set(tl.bots))
    for n, entry in found.items():
        entry["matches_now"] = seated[n]
        if entry["state"] == "playing" and not seated[n]:
            entry["state"] = "idle" if referee.is_connected(n) else "away"
        elif entry["state"] in ("idle", "away") and seated[n]:
            entry["state"] = "playing"
    return found


def states(ledger, names: Sequence[str], live: Mapping[str, dict] | None = None,
           kept: Sequence | None = None) -> dict[str, dict]:
    """Each bot's state (docs/web.md): ``live`` (:func:`live_states`) with the ledger's pause
    and bench over it, so a ``bot pause`` by another process shows at once (one query; none when
    the caller has just read the bots' ``BotState``, ``kept``)."""
    kept = {s.name: s for s in (ledger.bot_states(names) if kept is None else kept)}
    now = datetime.now(timezone.utc)
    out = {}
    for n in names:
        entry = {"state": None, "matches_now": None, "benched_until": None, "bench_reason": None,
                 **((live or {}).get(n) or {})}
        s = kept.get(n)
        if s is not None and entry["state"] not in ("paused", "benched"):
            if s.paused:
                entry["state"] = "paused"
            elif s.benched(now):
                entry.update(state="benched", benched_until=s.benched_until.isoformat(timespec="seconds"),
                             bench_reason=s.bench_reason)
        out[n] = entry
    return out


def ladder_list(arena, shown: Sequence | None = None) -> list[dict]:
    """The ladders of ``serve --ladder`` now (read on the event loop): per ladder its game, table
    size, the bots on it (connected, said hello, play the game, neither paused nor benched), the
    bots playing its matches and how many run; [] without an arena. ``shown``: the matches being
    played as of the spectator delay (``live.delayed``), None without one."""
    if arena is None:
        return []
    referee = arena.referee
    tables = {tuple(t) for t in list(arena.tasks.values())}
    out = []
    for spec in arena.ladders:
        if shown is None:
            runs = [r.bots for r in list(referee.runs.values())
                    if r.match.game_id == spec.game and tuple(r.bots) in tables]
        else:
            runs = [tl.bots for tl in shown if tl.ladder and tl.game == spec.game]
        playing = {b for bots in runs for b in bots}
        on = {b for b, link in list(referee.links.items())
              if link.hello.is_set() and (not link.games or spec.game in link.games)
              and b not in arena.paused and b not in arena.benched}
        out.append({"game": spec.game, "seats": spec.seats, "bots": sorted(on | playing),
                    "playing": sorted(playing), "matches_now": len(runs)})
    return out


def bot_detail(ledger, name: str, live: Mapping[str, dict] | None = None,
               history: Callable[[Line], Any] = history_json) -> dict:
    """A bot's answer; ``live``: what this process knows of it now (:func:`live_states`);
    ``history`` gives each rating's line as its ``history`` (:func:`bot_answer` keeps the Line)."""
    try:
        info, state, recent, summaries, _, version = ledger.bot_page(name, RECENT, durations=False, as_json=True)
        seconds = match_seconds(ledger, name, sum(s["seats"] for s in summaries.values()))
    except LedgerError as e:
        raise not_found(e) from None
    by_bot = tables(ledger, version).by_bot
    ratings = by_bot.get(name, [])
    hosting = versions.hosted(ledger, name, by_bot)
    found = lines(ledger, [(name, r["game"], r["matches"]) for r in ratings], LINE_POINTS)
    by_kind: Counter = Counter()
    for s in summaries.values():
        by_kind.update(s["fault_kinds"])
    absent = by_kind.pop("absent", 0)  # forfeits, not faults: counted apart

    def latency_of(rows) -> dict:
        return latency_json(latencies.merge(s["latency"] for s in rows), sum(s["latency_seats"] for s in rows),
                            sum(s["seats"] - s["latency_seats"] for s in rows))
    return {
        "bot": info.to_json(), **states(ledger, [name], live, [state])[name],
        "ratings": [{**r, "history": history(found[name, r["game"]])} for r in ratings],
        "version_of": hosting.version_of, "versions": hosting.versions,
        "recent_matches": [match_json(m) for m in recent],
        "faults": sum(s["faults"] for s in summaries.values()), "faults_by_kind": dict(sorted(by_kind.items())),
        "forfeits": sum(s["forfeits"] for s in summaries.values()), "absent": absent,
        "latency": {"overall": latency_of(summaries.values()),
                    "by_game": {g: latency_of([s]) for g, s in sorted(summaries.items())}},
        "match_seconds": dict(seconds),
    }


def bot_answer(ledger, name: str, live: Mapping[str, dict] | None = None) -> bytes:
    """:func:`bot_detail` encoded, each rating's history as its line keeps it encoded
    (``Line.history_text``: a bot's page and answer draw the same line again and again until it
    plays that game again), never built and encoded again."""
    d = bot_detail(ledger, name, live, history=lambda line: line)
    ratings = b"[%s]" % b",".join(spliced(r, {"history": r["history"].history_text()}) for r in d["ratings"])
    return spliced(d, {"ratings": ratings})


def league_json(info, ended: bool = False) -> dict:
    """A league: its settings but the organizer's machine, its seed or secret only once ``ended``."""
    d = info.to_json(reveal=ended)
    d["settings"] = {k: v for k, v in d["settings"].items() if k not in PRIVATE_SETTINGS}
    d["ended"] = ended
    return d


def league_list(ledger) -> list[dict]:
    return [league_json(lg) for lg in ledger.leagues()]


def league_detail(ledger, league_id: int) -> dict:
    try:
        info = ledger.league(league_id)
        results = ledger.league_results(league_id)
    except LedgerError as e:
        raise not_found(e) from None
    from ..league import league_ended
    return {"league": league_json(info, league_ended(info, results)),
            "standings": standings(results, info.settings.get("bots")).to_json(),
            "recent_matches": [match_json(m) for m in ledger.matches(league_id=league_id, limit=RECENT, as_json=True)]}


def match_list(ledger, game: str | None = None, bot: str | None = None, league: int | None = None,
               limit: int = 50, kind: str | None = None) -> list[dict]:
    if game is not None:
        check_game(game)
    try:
        if league is not None:
            ledger.league(league)
        return [match_json(m) for m in ledger.matches(league_id=league, game=game, bot=bot, limit=limit, kind=kind,
                                                      as_json=True)]
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
    return match_dict(m)


def match_dict(m) -> dict:
    """A match's answer (a MatchDetail's): its log and play-by-play only once its deal is spent
    (finished, and for a duplicate set every rotation finished)."""
    d = match_json(m)
    absent = m.absent
    d["seats"] = [{"seat": s, "bot": b, "score": m.scores[s], "place": m.places[s], "faults": m.faults[s],
                   "forfeited": m.forfeited[s], "absent": absent[s]} for s, b in enumerate(m.bots)]
    d["faults"] = list(m.result_details.get("faults", []))
    d["rating_changes"] = [{**c.to_json(), "delta_mu": c.delta_mu} for c in m.rating_changes]
    d["duration_s"] = m.duration_s
    shown = m.deal_spent
    d["steps"] = m.steps if shown else []
    d["events"] = m.events if shown else []
    d["play_by_play"] = play_by_play(m) if shown else []
    return d


def match_answer(ledger, match_id: int) -> tuple[bytes, bool]:
    """A match's answer encoded (:func:`match_dict`'s JSON), and whether it is shown in full.
    A finished match's steps and events are sent as the ledger stores their JSON
    (``Ledger.match_log_text``), never decoded and encoded again: the same content, non-ASCII
    characters escaped (``\\u2660`` for ♠)."""
    try:
        m, steps, events = ledger.match_log_text(match_id)
    except LedgerError as e:
        raise not_found(e) from None
    d = match_dict(m)
    if not m.deal_spent:
        return encoded(d), False
    return spliced(d, {"steps": steps, "events": events}), True


# ----------------------------------------------------------------------------- the routes

@router.get("/games")
def api_games(ledger: Ledger) -> list[dict]:
    """The registered games, each with how many bots are rated in it."""
    return answer(game_list(ledger))


@router.get("/games/{game}/ratings")
def api_ratings(game: str, ledger: Ledger, limit: RatingsLimit = RATINGS_LIMIT, offset: Offset = 0,
                q: NameQuery = None) -> list[dict]:
    """A game's rating table, best μ − 3σ first: ``limit`` rows from ``offset`` (0: the best);
    with ``q``, only the bots whose name holds it (any case), ranked as in the whole table."""
    return answer(game_ratings(ledger, game, limit, offset, q=q))


@router.get("/bots/{name}")
async def api_bot(name: str, request: Request, ledger: Ledger) -> dict:
    """A bot: owner, state, ratings per game with history, recent matches, faults by kind, forfeits, latency;
    a hosted bot's versions (state, matches, ratings), or for a version ``NAME@K`` which bot it is."""
    live = live_states(request, [name])  # on the loop; the ledger in a thread
    return Response(await run_in_threadpool(bot_answer, ledger, name, live), media_type="application/json")


@router.get("/leagues")
def api_leagues(ledger: Ledger) -> list[dict]:
    """Every league with its progress."""
    return answer(league_list(ledger))


@router.get("/leagues/{league_id}")
def api_league(league_id: LeagueId, ledger: Ledger) -> dict:
    """A league: settings, progress, standings, head-to-head, duplicate sets, recent matches."""
    return answer(league_detail(ledger, league_id))


@router.get("/matches")
def api_matches(ledger: Ledger, game: str | None = None, bot: str | None = None, league: LeagueQuery = None,
                kind: KindQuery = None, limit: Limit = 50) -> list[dict]:
    """Matches, newest first; ``kind``: only ladder, league or ad-hoc (``match``) ones."""
    return answer(match_list(ledger, game, bot, league, limit, kind))


@router.get("/ladders")
async def api_ladders(request: Request) -> list[dict]:
    """The ladders this server runs now (``serve --ladder``); [] under ``cardarena web``."""
    from .live import delayed
    return answer(ladder_list(request.app.state.arena, delayed(request)))


@router.get("/matches/{match_id}")
def api_match(match_id: MatchId, ledger: Ledger) -> dict:
    """A match: seats, result, faults, rating changes, play-by-play, steps and event log."""
    body = kept_answer(ledger, ("api", match_id))
    if body is None:
        body, finished = match_answer(ledger, match_id)
        if finished:
            keep_answer(ledger, ("api", match_id), body)
    return Response(body, media_type="application/json")
