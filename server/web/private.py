"""``serve --web-private``: every page, static file and API answer needs the admin token.

The token is accepted two ways, checked in constant time (``hmac.compare_digest``):

- an ``Authorization: Bearer TOKEN`` header (scripts, ``curl -H``);
- the cookie ``cardarena_admin`` (browsers), set by the sign-in form: any page asked for without
  the token answers 401 with a one-field form that posts the token to ``/login``, which sets the
  cookie (``HttpOnly``, ``SameSite=Strict``, for the whole site) and sends the browser back to the
  page it asked for. ``/logout`` clears it.

Under ``/api/`` a request without the token is a JSON 401 (``{"detail": …}``, with
``WWW-Authenticate: Bearer``), never a form. The token is never written into a page or a log.
This is a plain ASGI middleware (not Starlette's ``BaseHTTPMiddleware``), so the live pages'
server-sent events stream through it untouched.
"""
from __future__ import annotations

import hmac
import json
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, quote, urlsplit

from markupsafe import escape

COOKIE = "cardarena_admin"
MAX_FORM = 4096  # bytes of a sign-in form: a token is ~43 characters

FORM = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cardarena: sign in</title>
<link rel="stylesheet" href="data:text/css,body{{font-family:system-ui,sans-serif;margin:3rem}}"></head>
<body><h1>cardarena</h1><p>{message}</p>
<form method="post" action="/login"><input type="hidden" name="next" value="{next}">
<label>admin token <input type="password" name="token" autofocus required></label>
<button type="submit">sign in</button></form></body></html>"""


def install(app, token: str) -> None:
    """Wrap ``app`` so that every request needs ``token`` (module docstring)."""
    app.add_middleware(PrivateSite, token=token)


def _safe_next(target: str) -> str:
    """A path on this site to go back to (never another site: ``//evil`` or a URL)."""
    parts = urlsplit(target)
    if (parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//")
            or "\\" in target or any(ord(c) < 32 for c in target)):  # "/\\evil" is "//evil" to a browser
        return "/"
    return target


class PrivateSite:
    def __init__(self, app, token: str):
        self.app = app
        self.token = token.encode()

    def _valid(self, given: str) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), self.token)

    def _presented(self, scope) -> str:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            return auth[7:].strip()
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # noqa: BLE001 - a mangled cookie header is no token
            return ""
        morsel = cookie.get(COOKIE)
        return morsel.value if morsel else ""

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "/")
        if path == "/login" and scope["method"] == "POST":
            return await self._login(receive, send)
        if path == "/logout":
            return await _respond(send, 303, b"", [(b"location", b"/"), _cookie_header("", 0)])
        if self._valid(self._presented(scope)):
            return await self.app(scope, receive, send)
        if path.startswith("/api/"):
            body = json.dumps({"detail": "this site is private: give the admin token "
                                         "(Authorization: Bearer TOKEN)"}).encode()
            return await _respond(send, 401, body, [(b"content-type", b"application/json"),
                                                    (b"www-authenticate", b"Bearer")])
        query = scope.get("query_string", b"").decode("latin-1")
        here = path + (f"?{query}" if query else "")
        return await _form(send, 401, "This site is private: sign in with the admin token.", here)

    async def _login(self, receive, send):
        body, more = b"", True
        while more and len(body) <= MAX_FORM:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if len(body) > MAX_FORM:
            return await _form(send, 413, "That form is too large.", "/")
        fields = parse_qs(body.decode("utf-8", "replace"))
        given = (fields.get("token") or [""])[0].strip()
        target = _safe_next((fields.get("next") or ["/"])[0])
        if not self._valid(given):
            return await _form(send, 401, "That is not the admin token.", target)
        return await _respond(send, 303, b"", [(b"location", quote(target, safe="/?=&%:;,+@").encode()),
                                                _cookie_header(given, None)])


def _cookie_header(value: str, max_age: int | None) -> tuple[bytes, bytes]:
    parts = [f"{COOKIE}={value}", "Path=/", "HttpOnly", "SameSite=Strict"]
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    return b"set-cookie", "; ".join(parts).encode("latin-1")


async def _form(send, status: int, message: str, target: str):
    page = FORM.format(message=escape(message), next=escape(target)).encode()
    await _respond(send, status, page, [(b"content-type", b"text/html; charset=utf-8")])


async def _respond(send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]):
    await send({"type": "http.response.start", "status": status,
                "headers": [*headers, (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})
