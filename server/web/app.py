"""The web application: one FastAPI app over one ledger, its pages and its JSON API.

``create_app(ledger)`` returns the app; the ledger is ``request.app.state.ledger`` (see
:func:`ledger_of`). Pages are server-rendered from ``templates/``, static files are served from
``static/`` at ``/static``; the API lives under ``/api/v1/`` with FastAPI's OpenAPI schema at
``/api/v1/openapi.json``. Ledger calls are blocking (SQLAlchemy), so route functions are plain
``def`` and run in FastAPI's thread pool, never on the event loop.
"""
from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

HERE = Path(__file__).resolve().parent
templates = Jinja2Templates(directory=str(HERE / "templates"))


def ledger_of(request: Request):
    """The ledger the app serves (a FastAPI dependency)."""
    return request.app.state.ledger


def create_app(ledger) -> FastAPI:
    app = FastAPI(title="cardarena", openapi_url="/api/v1/openapi.json", docs_url="/api/v1/docs",
                  redoc_url=None)
    app.state.ledger = ledger
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    from . import api, pages, replay  # their routers
    app.include_router(api.router)
    app.include_router(replay.router)
    app.include_router(pages.router)
    return app
