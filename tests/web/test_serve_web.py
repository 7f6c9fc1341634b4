"""The web beside the referee: `cardarena serve` serves the pages in its own event loop
(``--web-address``, ``--no-web``, ``--web-private``), `league run --web-address` and `demo --web`
serve them while a league plays, and `cardarena web --private` puts a ledger's pages behind the
admin token. Every process here is the real CLI on real ports; ``cli`` (tests/conftest.py) runs
the command in-process for the one-line mistakes."""
from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


def one_line(err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: "), err
    for w in words:
        assert w in lines[0], err

CLI = [sys.executable, "-m", "cardarena.server.cli"]
ROOT = Path(__file__).resolve().parents[2]
TOKEN = "the-organizers-admin-token"


def _read_url(stream, pattern: str, timeout: float = 60) -> tuple[str, list[str]]:
    """Lines of ``stream`` up to the first that matches ``pattern`` (its group 1: a URL)."""
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(pattern, line)
        if m:
            return m.group(1), seen
    raise AssertionError(f"no line matching {pattern!r} in: {''.join(seen)}")


def _start(args, cwd, **env) -> subprocess.Popen:
    return subprocess.Popen([*CLI, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})


def _stop(proc: subprocess.Popen, sig=signal.SIGTERM) -> tuple[str, str]:
    proc.send_signal(sig)
    try:
        return proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture
def served(league, tmp_path):
    """``served(*flags)``: `cardarena serve` over the league's ledger (without ``--ladder`` it
    writes nothing there), with the flags; yields (the web's base URL, the process)."""
    procs = []

    def start(*flags):
        proc = _start(["serve", "--db", str(league.db), "--address", "127.0.0.1:0", *flags], tmp_path,
                      CARDARENA_ADMIN_TOKEN=TOKEN)
        procs.append(proc)
        url, _ = _read_url(proc.stderr, r"cardarena web: (http://127\.0\.0\.1:\d+/)")
        return url, proc
    yield start
    for p in procs:
        if p.poll() is None:
            _stop(p)


def test_serve_serves_the_pages_beside_the_referee_until_sigterm(served, league):
    url, proc = served("--web-address", "127.0.0.1:0")
    assert [g["id"] for g in httpx.get(url + "api/v1/games").json()][:1]  # the games, from the same process
    board = httpx.get(url + f"games/{league.game}")
    assert board.status_code == 200 and all(b in board.text for b in league.bots)
    live = httpx.get(url + "api/v1/live")  # the live referee is there (no match runs now)
    assert live.status_code == 200 and live.json() == []
    out, err = _stop(proc)
    assert proc.returncode == 143, err  # SIGTERM
    assert "Traceback" not in err


def test_web_private_needs_the_admin_token_everywhere(served, league):
    url, _ = served("--web-address", "127.0.0.1:0", "--web-private")
    for path in ("", f"games/{league.game}", "api/v1/games", "static/site.css", f"matches/1",
                 "api/v1/openapi.json"):
        r = httpx.get(url + path)
        assert r.status_code == 401, path
        assert TOKEN not in r.text
    assert httpx.get(url + "api/v1/games").json()["detail"].startswith("this site is private")
    assert "sign in" in httpx.get(url + "games/x").text  # a page asks for the token with a form
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.get(url + "api/v1/games", headers=bearer).status_code == 200
    assert httpx.get(url + "api/v1/games", headers={"Authorization": "Bearer not-it"}).status_code == 401
    # the sign-in form: a wrong token is refused, the right one sets the cookie and goes back
    wrong = httpx.post(url + "login", data={"token": "not-it", "next": "/leagues"})
    assert wrong.status_code == 401 and "not the admin token" in wrong.text
    with httpx.Client(base_url=url) as browser:
        signed = browser.post("/login", data={"token": TOKEN, "next": f"/games/{league.game}"})
        assert signed.status_code == 303 and signed.headers["location"] == f"/games/{league.game}"
        assert "HttpOnly" in signed.headers["set-cookie"]
        page = browser.get(f"/games/{league.game}")
        assert page.status_code == 200 and league.bots[0] in page.text and TOKEN not in page.text
        browser.get("/logout")
        assert browser.get("/").status_code == 401
    # never a way off the site after signing in
    for elsewhere in ("//elsewhere.example/", "/\\elsewhere.example/", "https://elsewhere.example/"):
        away = httpx.post(url + "login", data={"token": TOKEN, "next": elsewhere})
        assert away.headers["location"] == "/", elsewhere


def test_no_web_serves_only_grpc(league, tmp_path):
    proc = _start(["serve", "--db", str(league.db), "--address", "127.0.0.1:0", "--no-web"], tmp_path,
                  CARDARENA_ADMIN_TOKEN=TOKEN)
    try:
        line = proc.stderr.readline()
        assert "referee listening" in line
    finally:
        out, err = _stop(proc)
    assert "cardarena web:" not in err and proc.returncode == 143


@pytest.mark.parametrize("args, hint", [
    (["--no-web", "--web-private"], "--no-web"),
    (["--no-web", "--web-address", "127.0.0.1:0"], "--no-web"),
    (["--web-address", "127.0.0.1:99999"], "--web-address"),
    (["--web-address", "unix:/tmp/x.sock"], "--web-address"),
])
def test_serve_web_mistakes_are_one_line(cli, ledger_url, args, hint):
    code, _, err = cli("serve", "--db", ledger_url(), "--address", "127.0.0.1:0", *args)
    assert code == 2
    one_line(err, hint)


def test_a_taken_web_address_is_one_line_before_anything_starts(cli, ledger_url):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        code, _, err = cli("serve", "--db", ledger_url(), "--address", "127.0.0.1:0",
                           "--web-address", f"127.0.0.1:{port}")
    finally:
        taken.close()
    assert code == 1
    one_line(err, "cannot listen on", "for the web", "--no-web")


def test_web_private_reads_the_token_and_needs_one(cli, league, tmp_path, monkeypatch):
    monkeypatch.delenv("CARDARENA_ADMIN_TOKEN", raising=False)
    code, _, err = cli("web", "--db", str(league.db), "--private")
    assert code == 1
    one_line(err, "--private needs the admin token")
    code, _, err = cli("web", "--db", str(league.db), "--admin-token-file", str(tmp_path / "t"))
    assert code == 2
    one_line(err, "--private")
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    proc = _start(["web", "--db", str(league.db), "--address", "127.0.0.1:0", "--private",
                   "--admin-token-file", str(token_file)], tmp_path)
    try:
        url, _ = _read_url(proc.stdout, r"cardarena web: (http://127\.0\.0\.1:\d+/)")
        assert httpx.get(url + "api/v1/games").status_code == 401
        assert httpx.get(url + "api/v1/games", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    finally:
        _stop(proc)


def test_demo_web_serves_while_it_plays_and_after_until_ctrl_c(tmp_path):
    """`cardarena demo --web`: the pages come up before the first match (the URL is printed),
    the league plays to its end, its summary is printed, and the pages go on until Ctrl-C."""
    proc = _start(["demo", "--web", "--web-address", "127.0.0.1:0", "--rounds", "1", "--db",
                   str(tmp_path / "demo.db")], tmp_path)
    try:
        url, _ = _read_url(proc.stderr, r"watch it live: (http://127\.0\.0\.1:\d+/)")
        assert httpx.get(url).status_code == 200  # serving before the league is over
        _, lines = _read_url(proc.stdout, r"serving the pages at (http://\S+) until Ctrl-C", timeout=120)
        text = "".join(lines)
        assert "ratings for sixth-card" in text
        board = httpx.get(url + "games/sixth-card")
        assert board.status_code == 200 and "heuristic-1" in board.text
        matches = httpx.get(url + "api/v1/matches").json()
        assert len(matches) == 4 and all(m["status"] == "finished" for m in matches)
    finally:
        out, err = _stop(proc, signal.SIGINT)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "cardarena: interrupted"
    assert "Traceback" not in err


def test_demo_ends_with_the_command_that_shows_it_in_a_browser_as_printed(tmp_path):
    """Run as `make demo` runs it (the venv's own `cardarena`, from a shell whose PATH does not
    have the venv), its last line is a command that works in that shell."""
    exe = Path(sys.executable).parent / "cardarena"
    shell = {**os.environ, "PATH": "/usr/bin:/bin"}
    db = tmp_path / "demo.db"
    r = subprocess.run([str(exe), "demo", "--rounds", "1", "--db", str(db)], cwd=tmp_path, env=shell,
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    command = shlex.split(last.split("#")[0])
    assert command == [str(exe), "web", "--db", str(db)]
    assert subprocess.run([*command, "--help"], cwd=tmp_path, env=shell, capture_output=True).returncode == 0


def test_league_run_web_address_is_for_a_local_league(cli, ledger_url):
    code, _, err = cli("league", "run", "--game", "sixth-card", "--bot", "a", "--bot", "b",
                       "--server", "127.0.0.1:1", "--web-address", "127.0.0.1:0", "--db", ledger_url())
    assert code == 2
    one_line(err, "--web-address")
