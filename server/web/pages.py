"""The pages: the API's nouns without its prefix, server-rendered, working without JavaScript.

Pages: ``/`` (the games, the ladders, the matches playing now, the latest results),
``/games/{game}`` (the leaderboard, 50 bots a page, ``?q=`` filters it by bot name),
``/bots/{name}``, ``/leagues``, ``/leagues/{id}``, ``/matches`` and ``/matches/{id}``; and
``/favicon.ico``.

Every page renders the answer of the matching API function (:mod:`cardarena.server.web.api`),
so the two never disagree; an unknown name or id is an HTML 404 page (``app.py``), and so is a
leaderboard page past the last. Charts are bounded (``api.SPARK_POINTS``, ``api.LINE_POINTS``);
a finished match's page is kept as drawn, like its API answer, and so is a leaderboard page
(docs/web.md, api, says what is cached). A hosted bot's versions are listed on its page, a
version's line on a leaderboard is tagged with its state (:mod:`.versions`); their logs are on
the owner's pages (:mod:`.owner`). A bot's state is the API's (``api.states``): what the
referee and the arena hold is read on the event loop, so those routes are ``async`` and do their
ledger reading and rendering in the thread pool.

Design notes and measurements: docs/web.md (pages).
"""
from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse
from markupsafe import Markup, escape
from starlette.concurrency import run_in_threadpool

from cardarena.ratings.models import FINISHED, KINDS

from . import api, charts, live, versions
from .deps import HERE, ledger_of, templates

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

#: A card in the games' text: rank and suit (``10♥``, ``Q♠``) or a joker (``Jo``).
CARD = re.compile(r"(?<![\w/])(?:(10|[2-9AJQK])([♣♦♥♠])|Jo)(?![\w/])")
RED = "♥♦"
PAGE_ROWS = 50  # bots on a page of a leaderboard
POLL = 3  # seconds between two fetches of a followed leaderboard (board.js)
PageNo = Annotated[int, Query(alias="page", ge=1, le=api.ID_MAX)]


def _card_span(m: re.Match) -> str:
    colour = "joker" if m.group(2) is None else "red" if m.group(2) in RED else "black"
    return f'<span class="card {colour}">{m.group(0)}</span>'


def cards(text) -> Markup:
    """Text with every card wrapped in a span coloured by its suit (the rest escaped).

    The text is escaped first, in one call, then its cards wrapped: escaping neither makes nor
    unmakes a card (an entity is ``&…;``, no letter or digit next to a card changes), and a card
    is only digits, letters and a suit sign (:data:`CARD`), markup-safe as it is. A long
    play-by-play has thousands of cards."""
    return Markup(CARD.sub(_card_span, str(escape(str(text)))))


def num(value, digits: int = 2) -> str:
    """A number rounded for reading, or – when there is none."""
    return "–" if value is None else f"{value:.{digits}f}"


templates.env.filters["cards"] = cards
templates.env.filters["num"] = num


def page(request: Request, name: str, **context) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context)


async def rendered(request: Request, name: str, **context) -> HTMLResponse:
    """A page rendered in the thread pool (from an ``async`` route)."""
    return await run_in_threadpool(page, request, name, **context)


@router.get("/")
async def home(request: Request):
    ladders = api.ladder_list(request.app.state.arena, live.delayed(request))  # on the loop
    watch = getattr(request.app.state, "live", None) is not None

    def read():
        ledger = ledger_of(request)
        return dict(games=api.game_list(ledger), playing=live.running(request), ladders=ladders, watch=watch,
                    results=api.match_list(ledger, limit=api.RECENT), leagues=api.league_list(ledger)[-5:][::-1])
    return await rendered(request, "home.html", **await run_in_threadpool(read))


def _board_rows(ledger, game: str, page_no: int, q: str) -> tuple[tuple, list[dict], int, int]:
    """The ledger's fingerprint (``Ledger.version``), a page of the leaderboard's rows as of it
    (the bots whose name holds ``q``, if given), how many bots those are and how many pages."""
    version = ledger.version()
    found = api.rated_bots(ledger, game, version, q)
    pages = max(1, -(-found // PAGE_ROWS))
    if page_no > pages:
        raise HTTPException(404, f"no page {page_no} of the {game} leaderboard: it has {pages}")
    return version, api.game_ratings(ledger, game, PAGE_ROWS, (page_no - 1) * PAGE_ROWS, version, q), found, pages


async def _board(request: Request, game: str, page_no: int, template: str, q: str | None) -> HTMLResponse:
    """A leaderboard page or its fragment (``template``): the rows with their owners, lines and
    states, the ladder; the bots whose name holds ``q`` only, if given; drawn once for what it
    shows (docs/web.md) and kept (``api.keep_answer``)."""
    ledger = ledger_of(request)
    cls = api.check_game(game)
    q = (q or "").strip()
    version, rows, found, pages = await run_in_threadpool(_board_rows, ledger, game, page_no, q)
    names = [r["bot"] for r in rows]
    live_states = api.live_states(request, names)  # on the loop
    ladder = next((lad for lad in api.ladder_list(request.app.state.arena, live.delayed(request))
                   if lad["game"] == game), None)

    def draw() -> HTMLResponse:
        kept = ledger.bot_states(names)  # one query: owners, pauses and benches
        owners = {s.name: s.owner for s in kept}
        states = api.states(ledger, names, live_states, kept)
        hosted = versions.states(ledger, names)  # one query: which lines are versions, in what state
        key = ("board", template, game, page_no, q, version,
               api.encoded([[(states[n], owners.get(n), hosted.get(n)) for n in names], ladder]))
        body = api.kept_answer(ledger, key)
        if body is not None:
            return HTMLResponse(body)
        lines = api.lines(ledger, [(r["bot"], game, r["matches"]) for r in rows], api.SPARK_POINTS)
        for r in rows:
            r["owner"] = owners.get(r["bot"])
            r["state"] = states[r["bot"]]
            r["version"] = hosted.get(r["bot"])  # (its bot, K, state) for a hosted bot's version NAME@K
            r["sparkline"] = lines[r["bot"], game].drawn(charts.sparkline, f"{r['bot']}: μ − 3σ over its matches")
        drawn = page(request, template, game=game, title=cls.title, summary=cls.summary, rows=rows,
                     page_no=page_no, pages=pages, ladder=ladder, poll=POLL, q=q, found=found)
        api.keep_answer(ledger, key, drawn.body)
        return drawn
    return await run_in_threadpool(draw)


@router.get("/favicon.ico")
def favicon():
    """The site's icon (a card with a heart, ``static/favicon.svg`` at 16 and 32 pixels), where
    browsers look for it without a ``<link rel="icon">``."""
    return FileResponse(HERE / "static" / "favicon.ico", media_type="image/x-icon",
                        headers={"Cache-Control": "public, max-age=86400"})


@router.get("/games/{game}")
async def game(request: Request, game: str, page_no: PageNo = 1, q: api.NameQuery = None):
    """The leaderboard, 50 bots a page; ``q``: only the bots whose name holds it (any case)."""
    return await _board(request, game, page_no, "game.html", q)


@router.get("/games/{game}/board")
async def game_board(request: Request, game: str, page_no: PageNo = 1, q: api.NameQuery = None):
    """The leaderboard's table alone, as an HTML fragment (what board.js puts in the page)."""
    return await _board(request, game, page_no, "_board.html", q)


@router.get("/bots/{name}")
async def bot(request: Request, name: str):
    live_states = api.live_states(request, [name])  # on the loop

    def read():
        d = api.bot_detail(ledger_of(request), name, live_states, history=lambda line: line)
        for r in d["ratings"]:  # drawn once a line (api.Line.drawn), against its rated matches
            line = r["history"]
            r["chart"] = line.drawn(charts.history_chart, f"{name} in {r['game']}: μ, μ ± σ and μ − 3σ",
                                    **api.line_span(r["matches"], len(line)))
        return d
    return await rendered(request, "bot.html", **await run_in_threadpool(read))


@router.get("/leagues")
def leagues(request: Request):
    return page(request, "leagues.html", leagues=api.league_list(ledger_of(request)))


@router.get("/leagues/{league_id}")
def league(request: Request, league_id: api.LeagueId):
    d = api.league_detail(ledger_of(request), league_id)
    table = d["standings"]["table"]
    pairs = {a["bot"]: {b["bot"]: None for b in table} for a in table}  # head-to-head, in standings order
    for h in d["standings"]["head_to_head"]:
        pairs[h["bot"]][h["other"]] = h
    return page(request, "league.html", pairs=pairs, **d)


@router.get("/matches")
def matches(request: Request, game: str | None = None, bot: str | None = None, league: api.LeagueQuery = None,
            kind: api.KindQuery = None, limit: api.Limit = 50):
    found = api.match_list(ledger_of(request), game, bot, league, limit, kind)
    return page(request, "matches.html", matches=found, game=game, bot=bot, league=league, kind=kind,
                kinds=KINDS, query=request.query_params)


@router.get("/matches/{match_id}")
async def match(request: Request, match_id: api.MatchId):
    live_now = getattr(request.app.state, "live", None)
    watchable = live_now is not None and str(match_id) in live_now.runs  # on the loop
    ledger = ledger_of(request)
    body = api.kept_answer(ledger, ("page", match_id))
    if body is not None:  # a finished match's page, drawn before (api.keep_answer)
        return HTMLResponse(body)
    m = await run_in_threadpool(api.match_detail, ledger, match_id)
    found = await rendered(request, "match.html", m=m, changes={c["seat"]: c for c in m["rating_changes"]},
                           watchable=watchable)
    if m["deal_spent"]:  # shown in full, never to change again
        api.keep_answer(ledger, ("page", match_id), found.body)
    return found
