"""The CLI's light start-up: what `cardarena --help` and `cardarena ratings`
import, and that the light read of the rating table gives the ledger's own table. No timings
here: bench/cli.py measures them."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from cardarena.ratings import Ledger, format_ratings
from cardarena.ratings.table import read_sqlite

# Runs the CLI in a new interpreter and prints, after its output, which heavy packages it imported.
PROBE = ("import sys\nfrom cardarena.server.cli import main\ncode = main(sys.argv[1:])\n"
         "heavy = ['sqlalchemy', 'sqlmodel', 'pydantic', 'alembic', 'grpc', 'rich', 'trueskill',\n"
         "         'asyncio', 'logging', 'socket']\n"
         "print(code, sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n")
HEAVY_FOR_A_TABLE = ["alembic", "grpc", "pydantic", "rich", "sqlalchemy", "sqlmodel"]


def run_cli(*argv: str) -> tuple[str, str, list[str]]:
    r = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    *said, last = r.stderr.strip().splitlines()
    code, imported = last.split(" ", 1)
    assert code == "0", r.stderr
    return r.stdout, "\n".join(said), json.loads(imported.replace("'", '"'))


@pytest.fixture
def rated(tmp_path) -> str:
    """A SQLite ledger with ratings in two games (set directly: the table reads them as stored)."""
    where = str(tmp_path / "rated.db")
    led = Ledger(where)
    for name in ("ann", "bob", "cy"):
        led.add_bot(name)
    led.close()
    with sqlite3.connect(where) as c:
        ids = dict(c.execute("SELECT name, id FROM bot"))
        c.executemany("INSERT INTO rating (bot_id, game, mu, sigma, matches, wins, place_sum) VALUES (?, ?, ?, ?, ?, ?, ?)",
                      [(ids["ann"], "scout", 30.0, 2.0, 10, 6, 14), (ids["bob"], "scout", 28.0, 1.0, 12, 4, 20),
                       (ids["cy"], "scout", 25.0, 8.0, 0, 0, 0), (ids["cy"], "sixth-card", 26.5, 3.5, 4, 2, 7)])
    return where


def test_ratings_of_a_sqlite_file_import_no_sqlalchemy_pydantic_alembic_nor_rich(rated):
    out, said, imported = run_cli("ratings", "--db", rated)
    assert [m for m in HEAVY_FOR_A_TABLE if m in imported] == []
    assert out == format_ratings(Ledger(rated).ratings(), "table") + "\n"
    assert said == f"ledger {rated}: ratings of every game"


def test_the_light_read_is_the_ledgers_table_in_every_format_and_game(rated):
    """The same rows as Ledger.ratings (rule 8 of rating.py: μ − 3σ, then μ, then the name; a bot
    without rated matches left out; ranks count within each game)."""
    led = Ledger(rated)
    for game in (None, "scout", "sixth-card", "unsorted"):
        assert read_sqlite(rated, game) == led.ratings(game)
    rows = read_sqlite(rated)
    assert [(r.game, r.rank, r.bot) for r in rows] == [("scout", 1, "bob"), ("scout", 2, "ann"), ("sixth-card", 1, "cy")]
    for fmt in ("json", "csv", "markdown"):
        out, _, _ = run_cli("ratings", "--db", rated, "--format", fmt, "--game", "scout")
        assert out.rstrip("\n") == format_ratings(led.ratings("scout"), fmt).rstrip("\n")


def test_a_ledger_of_another_schema_version_is_left_to_the_ledger_which_refuses_it(rated, cli):
    with sqlite3.connect(rated) as c:
        c.execute("UPDATE alembic_version SET version_num = '0003'")
    assert read_sqlite(rated) is None
    code, _, err = cli("ratings", "--db", rated)
    assert code == 1 and "schema version 0003" in err and "cardarena ledger upgrade" in err


def test_a_file_that_is_not_a_ledger_is_left_to_the_ledger(tmp_path, cli):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    assert read_sqlite(junk) is None
    code, _, err = cli("ratings", "--db", str(junk))
    assert code == 1 and "damaged or not a cardarena ledger" in err


def test_help_imports_no_ledger_grpc_rich_nor_pydantic_and_lists_whole_first_paragraphs():
    out, _, imported = run_cli("--help")
    # nor what only a running command needs: asyncio (the web, the referee), logging (the bridge), socket
    assert [m for m in ("alembic", "asyncio", "grpc", "logging", "pydantic", "rich", "socket", "sqlalchemy",
                        "sqlmodel") if m in imported] == []
    flat = " ".join(out.split())
    assert "play Play one match over gRPC with a readable log as it happens (for bot authors), then the result in place order." in flat
    assert "..." not in out.split("Commands:")[1]
    out, _, imported = run_cli("ratings", "--help")
    assert "pydantic" not in imported and "recompute" in out and "--format" in out


HELPS = ("import contextlib, io, sys\n"
         "if sys.argv[1] == 'eager':\n"
         "    import typer.main\n"
         "    typer.main.get_command_from_info.lazy = True  # app.py then leaves typer's own in place\n"
         "from cardarena.server.cli import main\n"
         "import typer.main\n"
         "print('lazy' if getattr(typer.main.get_command_from_info, 'lazy', False) and sys.argv[1] == 'lazy' else 'eager')\n"
         "for line in sys.stdin:\n"
         "    buf = io.StringIO()\n"
         "    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):\n"
         "        rc = main(line.split())\n"
         "    print('===', line.strip(), rc)\n"
         "    print(buf.getvalue())\n")


def test_a_command_built_on_first_use_has_the_same_help_as_one_built_at_start():
    """server/cli/app.py builds a command when it is used (start-up): every help text, of the
    app, each group and each command, is the same as when typer builds every command at start."""
    lines = ["--help", "bot --help", "league --help", "match --help", "ledger --help", "ratings --help",
             "league run --help", "league show --help", "bot add --help", "match show --help", "play --help",
             "serve --help", "web --help", "check --help", "bridge --help", "ledger check --help", "games --help"]
    said = {}
    for how in ("lazy", "eager"):
        r = subprocess.run([sys.executable, "-c", HELPS, how], input="\n".join(lines), capture_output=True,
                           text=True, timeout=120, env={**os.environ, "COLUMNS": "100"})
        assert r.returncode == 0, r.stderr
        first, _, rest = r.stdout.partition("\n")
        assert first == how
        said[how] = rest
    assert said["lazy"] == said["eager"]
    assert said["lazy"].count("=== ") == len(lines) and "Usage: cardarena league run" in said["lazy"]
