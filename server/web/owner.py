"""A hosted bot's logs, for its owner only: ``/bots/NAME/logs`` (every version) and
``/bots/NAME@K/logs`` (one) show its versions' build logs and the tail of their output a match
to a browser signed in with NAME's token, else a 401/403 page with the sign-in form.

A right token (``Ledger.bot_by_token``, NAME's) gets a cookie holding a new random session id,
never the token: ``HttpOnly``, ``SameSite=Strict``, ``Path=/bots/``, for :data:`SESSION_SECONDS`.
Sessions live in this process's memory (:class:`Owners`), each for one bot, and end at their
expiry, at sign-out, at a restart or when the bot gets a new token. Cross-site posts are refused;
wrong tokens are limited per address (:data:`FAILURES` within :data:`FAILURE_WINDOW` seconds).
Design notes: docs/web.md (Hosted bots).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Annotated
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from cardarena.ratings import LedgerError
from cardarena.ratings.ledger_base import hash_token
from cardarena.ratings.models import Bot

from . import versions
from .api import ID_MAX
from .deps import ledger_of, templates

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

COOKIE = "cardarena_owner"
COOKIE_PATH = "/bots/"  # sent to the bots' pages only
SESSION_SECONDS = 4 * 3600
SESSIONS_KEPT = 10_000  # sessions kept at most, the oldest dropped first
MAX_FORM = 4096  # bytes of a sign-in form: a token is ~43 characters
FAILURES = 10  # wrong tokens an address may give ...
FAILURE_WINDOW = 60.0  # ... within this many seconds; then 429 until the window has passed
ADDRESSES_KEPT = 10_000  # addresses whose wrong tokens are counted, the least recent dropped first
LOGS, LOGS_MAX = 20, 100  # match logs on the page: by default, at most
#: every owner's page: never kept by a browser or a proxy, never framed
HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"}

MatchQuery = Annotated[int | None, Query(ge=1, le=ID_MAX)]
LogLimit = Annotated[int, Query(ge=1, le=LOGS_MAX)]


@dataclass(frozen=True)
class Session:
    bot: str  # the bot whose token opened it
    digest: str  # that token's hash, as the ledger keeps it: a new token ends the session
    expires: float  # the clock's time


def _key(session_id: str) -> str:
    """What a session is kept under: its id's hash (the ids themselves are never kept)."""
    return hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()


class Owners:
    """The owners' sessions of one app (in memory) and the wrong tokens given per address."""

    def __init__(self, clock=time.time):
        self.clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # oldest first: they expire in order
        self._failures: OrderedDict[str, deque] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, bot: str, digest: str) -> str:
        """A new session for ``bot``; its id (the cookie's value)."""
        session_id = secrets.token_urlsafe(32)
        now = self.clock()
        with self._lock:
            while self._sessions and next(iter(self._sessions.values())).expires <= now:
                self._sessions.popitem(last=False)
            self._sessions[_key(session_id)] = Session(bot, digest, now + SESSION_SECONDS)
            while len(self._sessions) > SESSIONS_KEPT:
                self._sessions.popitem(last=False)
        return session_id

    def find(self, session_id: str | None) -> Session | None:
        """The live session of this id, or None."""
        if not session_id:
            return None
        key = _key(session_id)
        with self._lock:
            found = self._sessions.get(key)
            if found is not None and found.expires <= self.clock():
                del self._sessions[key]
                return None
            return found

    def close(self, session_id: str | None) -> None:
        if session_id:
            with self._lock:
                self._sessions.pop(_key(session_id), None)

    def wait(self, address: str) -> float:
        """Seconds before ``address`` may give a token again (0: now)."""
        now = self.clock()
        with self._lock:
            times = self._failures.get(address)
            while times and times[0] <= now - FAILURE_WINDOW:
                times.popleft()
            return times[0] + FAILURE_WINDOW - now if times and len(times) >= FAILURES else 0.0

    def failed(self, address: str) -> None:
        """``address`` gave a wrong token."""
        with self._lock:
            times = self._failures.setdefault(address, deque(maxlen=FAILURES))
            times.append(self.clock())
            self._failures.move_to_end(address)
            while len(self._failures) > ADDRESSES_KEPT:
                self._failures.popitem(last=False)


def install(app) -> None:
    """The owners' routes and their sessions on ``app``."""
    app.state.owners = Owners()
    app.include_router(router)


def owner_of(ledger, name: str) -> str:
    """The bot whose token opens ``name``'s logs: NAME@K's bot for a hosted version, else
    ``name`` itself; 404 for no bot."""
    version_of = versions.hosted(ledger, name, {}).version_of
    if version_of is not None:
        return version_of["bot"]
    try:
        return ledger.bot(name).name
    except LedgerError as e:
        raise HTTPException(404, str(e)) from None


def _token_digest(ledger, bot: str) -> str | None:
    with ledger._read() as session:
        return session.connection().execute(select(Bot.token_hash).where(Bot.name == bot)).scalar()


def _signed_in(request: Request, ledger, owner: str) -> tuple[Session | None, int, str]:
    """The session that opens ``owner``'s logs, or None with the status and words of a refusal."""
    owners: Owners = request.app.state.owners
    session_id = request.cookies.get(COOKIE)
    found = owners.find(session_id)
    if found is None:
        return None, 401, f"These logs are {owner}'s owner's: sign in with the bot's token."
    if found.bot != owner:
        return None, 403, f"You are signed in for {found.bot}, not {owner}: sign in with {owner}'s token."
    digest = _token_digest(ledger, owner)
    if digest is None or not hmac.compare_digest(digest, found.digest):
        owners.close(session_id)
        return None, 401, f"{owner} has a new token since you signed in: sign in with it."
    return found, 200, ""


def _logs_url(name: str) -> str:
    return f"/bots/{quote(name, safe='@:+')}/logs"


def _form(request: Request, name: str, owner: str, status: int, message: str,
          headers: dict | None = None) -> HTMLResponse:
    return templates.TemplateResponse(request, "owner_sign_in.html",
                                      {"name": name, "owner": owner, "message": message, "action": _logs_url(name)},
                                      status_code=status, headers={**HEADERS, **(headers or {})})


def _version_json(v) -> dict:
    return {"name": v.name, "version": v.number, "state": v.state, "created_at": versions.iso(v.created_at),
            "built_at": versions.iso(v.built_at), "size": v.size, "sha256": v.sha256, "run": v.run,
            "build": v.build, "build_log": v.build_log, "matches": v.matches}


@router.get("/bots/{name}/logs")
def logs(request: Request, name: str, match: MatchQuery = None, limit: LogLimit = LOGS):
    """The logs of ``name``'s versions (or of the version ``name``), newest first, to its owner;
    else the sign-in form."""
    ledger = ledger_of(request)
    owner = owner_of(ledger, name)
    session, status, message = _signed_in(request, ledger, owner)
    if session is None:
        return _form(request, name, owner, status, message)
    shown = [v for v in ledger.versions(owner) if name in (owner, v.name)]
    found = [{"version": v, "match_id": log.match_id, "created_at": versions.iso(log.created_at), "text": log.text}
             for v, log in ledger.bot_logs(name, match, limit)]
    until = datetime.fromtimestamp(session.expires, timezone.utc).isoformat(timespec="minutes")
    return templates.TemplateResponse(
        request, "owner_logs.html",
        {"name": name, "owner": owner, "versions": [_version_json(v) for v in reversed(shown)], "logs": found,
         "match": match, "limit": limit, "until": until, "action": _logs_url(name)}, headers=HEADERS)


def _same_site(request: Request) -> bool:
    """Whether a post comes from this site's own pages (a browser sends ``Origin`` with it)."""
    origin = request.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == request.headers.get("host", "")


async def _fields(request: Request) -> dict[str, str] | None:
    """The posted form's fields (the first value of each), or None past :data:`MAX_FORM` bytes."""
    body = b""
    async for part in request.stream():
        body += part
        if len(body) > MAX_FORM:
            return None
    return {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}


@router.post("/bots/{name}/logs")
async def sign_in(request: Request, name: str):
    """The sign-in form's post: a new session for the bot when the token is its owner's."""
    ledger = ledger_of(request)
    owner = await run_in_threadpool(owner_of, ledger, name)
    if not _same_site(request):
        return _form(request, name, owner, 403, "A sign-in must come from this site's own form.")
    owners: Owners = request.app.state.owners
    address = request.client.host if request.client else ""
    wait = owners.wait(address)
    if wait:
        return _form(request, name, owner, 429, f"Too many wrong tokens: try again in {int(wait) + 1} s.",
                     {"Retry-After": str(int(wait) + 1)})
    fields = await _fields(request)
    if fields is None:
        return _form(request, name, owner, 413, "That form is too large.")
    token = (fields.get("token") or "").strip()
    bot = await run_in_threadpool(ledger.bot_by_token, token) if token else None
    if bot is None or bot.name != owner:
        owners.failed(address)
        return _form(request, name, owner, 401, f"That is not {owner}'s token.")
    owners.close(request.cookies.get(COOKIE))  # a sign-in always starts a new session
    answer = RedirectResponse(_logs_url(name), status_code=303, headers=HEADERS)
    answer.set_cookie(COOKIE, owners.open(owner, hash_token(token)), max_age=SESSION_SECONDS, path=COOKIE_PATH,
                      httponly=True, samesite="strict", secure=request.url.scheme == "https")
    return answer


@router.post("/bots/{name}/logs/sign-out")
async def sign_out(request: Request, name: str):
    """Ends the browser's session (whichever bot's) and clears its cookie."""
    if not _same_site(request):
        raise HTTPException(403, "a sign-out must come from this site's own pages")
    request.app.state.owners.close(request.cookies.get(COOKIE))
    answer = RedirectResponse(f"/bots/{quote(name, safe='@:+')}", status_code=303, headers=HEADERS)
    answer.delete_cookie(COOKIE, path=COOKIE_PATH, httponly=True, samesite="strict",
                         secure=request.url.scheme == "https")
    return answer
