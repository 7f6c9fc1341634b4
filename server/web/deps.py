"""What every router of the web shares, below them all: the templates and the app's ledger and
referee as FastAPI dependencies. The routers (api, pages, live, replay, private) import this,
never :mod:`.app`, which imports them."""
from __future__ import annotations

from pathlib import Path

from fastapi import Request
from fastapi.templating import Jinja2Templates

HERE = Path(__file__).resolve().parent
templates = Jinja2Templates(directory=str(HERE / "templates"))
API = "/api/"


def ledger_of(request: Request):
    """The ledger the app serves (a FastAPI dependency)."""
    return request.app.state.ledger


def referee_of(request: Request):
    """The live referee of the process (``cardarena serve``), or None (``cardarena web``). Its
    state may only be read on the event loop: from ``async def`` routes, never from a thread."""
    return request.app.state.referee
