"""`cardarena web --db DB --address HOST:PORT`: it serves an existing ledger at the URL it prints
until Ctrl-C or SIGTERM, and every operator mistake is one line (a missing or damaged ledger, a
bad or taken address, the web extra not installed). ``cli`` is tests/conftest.py's: the command
in-process."""
from __future__ import annotations

import re
import signal
import subprocess
import sys

import httpx
import pytest

CLI = [sys.executable, "-m", "cardarena.server.cli"]


def one_line(err: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardarena: "), err
    for w in words:
        assert w in lines[0], err


def test_a_missing_ledger_is_one_line_and_is_not_made(cli, tmp_path):
    where = tmp_path / "none.db"
    code, _, err = cli("web", "--db", str(where))
    assert code == 1
    one_line(err, "no ledger at", "none.db")
    assert not where.exists()  # the web only reads: it never makes an empty ledger


def test_a_damaged_ledger_is_one_line(cli, tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is no SQLite file at all" * 100)
    code, _, err = cli("web", "--db", str(bad))
    assert code == 1
    one_line(err, "bad.db")


@pytest.mark.parametrize("address", ["8080", "127.0.0.1:70000", "host:port", "unix:/tmp/web.sock"])
def test_a_bad_address_is_a_bad_argument(cli, league, address):
    code, _, err = cli("web", "--db", str(league.db), "--address", address)
    assert code == 2
    one_line(err, "--address")


def test_without_the_web_extra_it_says_how_to_install_it(cli, league, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` fails as if not installed
    code, _, err = cli("web", "--db", str(league.db))
    assert code == 1
    one_line(err, "pip install 'cardarena[web]'")


@pytest.mark.parametrize("sig, code, words", [(signal.SIGINT, 130, "interrupted"),
                                               (signal.SIGTERM, 143, "stopped by SIGTERM")])
def test_it_serves_at_the_url_it_prints_until_a_signal(league, sig, code, words):
    web = subprocess.Popen([*CLI, "web", "--db", str(league.db), "--address", "127.0.0.1:0"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = web.stdout.readline()
        url = re.fullmatch(r"cardarena web: (http://127\.0\.0\.1:\d+/) \(Ctrl-C stops\)\n", line).group(1)
        assert httpx.get(url + "api/v1/leagues").json()[0]["id"] == league.league_id
        assert "Sixth Card" in httpx.get(url + "games/sixth-card").text
        if sig == signal.SIGINT:  # once is enough: a second `web` on the same address
            taken = subprocess.run([*CLI, "web", "--db", str(league.db), "--address", url[len("http://"):-1]],
                                   capture_output=True, text=True, timeout=60)
            assert taken.returncode == 1
            one_line(taken.stderr, "cannot listen on")
        web.send_signal(sig)
        out, err = web.communicate(timeout=20)
    finally:
        if web.poll() is None:
            web.kill()
            web.wait()
    assert web.returncode == code
    one_line(err, words)
