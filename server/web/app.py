"""The web application: one FastAPI app over one ledger, its pages and its JSON API.

``create_app(ledger, referee=None, private_token=None, ...)`` returns the app; the ledger is
``request.app.state.ledger`` (:func:`.deps.ledger_of`), the referee of the same process, when
the app is served by ``cardarena serve`` in the referee's event loop,
``request.app.state.referee`` (``None`` under ``cardarena web``, which shows no live matches: it
sees only the ledger). Pages are server-rendered from ``templates/``, static files are served
from ``static/`` at ``/static``; the API lives under ``/api/v1/`` with FastAPI's OpenAPI schema at
``/api/v1/openapi.json``. A hosted bot's logs are its owner's only (:mod:`.owner`). Ledger calls
are blocking (SQLAlchemy), so route functions are plain ``def`` and run in FastAPI's thread pool,
never on the event loop.

Errors: under ``/api/`` an unknown name or id is FastAPI's JSON ``{"detail": …}`` with 404, a bad
query parameter its 422; a page answers the same status with an HTML page that says it in words.
"""
from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from . import api, live, owner, pages, private, replay
from .broadcast import DEFAULT_PACE
from .deps import API, HERE, templates


def _error_page(request: Request, status: int, message: str):
    return templates.TemplateResponse(request, "error.html", {"status": status, "message": message},
                                      status_code=status)


async def _http_error(request: Request, exc: HTTPException):
    if request.url.path.startswith(API):
        return await http_exception_handler(request, exc)
    message = f"no page {request.url.path}" if exc.detail == "Not Found" else str(exc.detail)
    return _error_page(request, exc.status_code, message)


async def _bad_request(request: Request, exc: RequestValidationError):
    if request.url.path.startswith(API):
        return await request_validation_exception_handler(request, exc)
    words = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors())
    return _error_page(request, 422, words)


def create_app(ledger, referee=None, private_token: str | None = None, arena=None,
               live_pace: float = DEFAULT_PACE, spectator_delay: float = 0.0) -> FastAPI:
    """The app over ``ledger`` (and the live ``referee``, if any). With ``private_token`` every
    page, file and API answer needs that token (``serve --web-private``: :mod:`.private`).
    ``live_pace``: the live streams' seconds a step unless asked otherwise; ``spectator_delay``:
    seconds everything public about a running match is held back (:mod:`.broadcast`)."""
    # no Swagger page: it loads its scripts from a CDN, blank offline; the schema is the API doc
    app = FastAPI(title="cardarena", openapi_url="/api/v1/openapi.json", docs_url=None,
                  redoc_url=None)
    app.state.ledger = ledger
    app.state.referee = referee
    app.state.arena = arena  # the ladders of `serve --ladder` (server/ladder.py), or None
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.include_router(api.router)
    app.include_router(replay.router)
    live.install(app, live_pace, spectator_delay)  # the live routes, watching the referee if there is one
    app.include_router(pages.router)
    owner.install(app)  # a hosted bot's logs, for its owner (signed in with the bot's token)
    if private_token:
        private.install(app, private_token)
    return app
