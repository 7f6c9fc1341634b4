"""The ledger's schema version and its migrations (ratings/schema.py, ratings/migrations/): a
ledger file made by the first release (tests/fixtures/ledger-0.1.0.db, written by cardarena 0.1.0
itself: a league, a recorded `play` match, a bot that never played) is refused by every command
with one line until `cardarena ledger upgrade`, which keeps every fact and rating; on SQLite and on
a real PostgreSQL server."""
from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from cardarena.ratings import Ledger, LedgerVersionError
from cardarena.ratings.ledger import database_url
from cardarena.ratings.schema import HEAD, MIGRATIONS, _config

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "ledger-0.1.0.db"
CLI = [sys.executable, "-m", "cardarena.server.cli"]


def cardarena(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def facts(path: Path) -> dict:
    """What a ledger knows, read with plain SQL (the same before and after an upgrade)."""
    with sqlite3.connect(path) as c:
        return {"bots": c.execute("SELECT name, token_hash FROM bot ORDER BY id").fetchall(),
                "matches": c.execute("SELECT id, game, seed, status, league_id FROM match ORDER BY id").fetchall(),
                "seats": c.execute("SELECT * FROM seat ORDER BY match_id, seat").fetchall(),
                "ratings": c.execute("SELECT * FROM rating ORDER BY bot_id, game").fetchall(),
                "history": c.execute("SELECT id, match_id, seat, bot_id, game, rated, mu_before, sigma_before, mu, "
                                     "sigma FROM rating_history ORDER BY id").fetchall(),  # 0.1.0's columns
                "logs": c.execute("SELECT match_id, events, steps FROM match_log ORDER BY seq").fetchall()}


def test_a_first_release_ledger_is_refused_until_upgraded_and_keeps_everything(tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(FIXTURE, db)
    before = facts(db)
    for argv in (["ratings"], ["match", "list"], ["league", "list"], ["bot", "list"], ["ledger", "check"],
                 ["web", "--address", "127.0.0.1:0"]):
        r = cardarena(*argv, "--db", str(db), cwd=tmp_path)
        assert r.returncode == 1, (argv, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "schema version 0001 (cardarena 0.1.0)" in lines[0], (argv, r.stderr)
        assert f"cardarena ledger upgrade --db {db}" in lines[0]
    assert facts(db) == before  # refusing changes nothing

    r = cardarena("ledger", "upgrade", "--db", str(db), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f"upgraded from schema version 0001 (cardarena 0.1.0) to {HEAD}" in r.stdout
    assert facts(db) == before  # every fact and rating kept as it was
    r = cardarena("ledger", "check", "--replay", "--db", str(db), cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("ledger OK: 4 matches"), r.stdout + r.stderr
    led = Ledger(str(db))
    kinds = {m.id: (m.kind, m.league_id) for m in led.matches(limit=None)}
    assert all(kind == ("league" if league else "match") for kind, league in kinds.values())
    assert sorted(kind for kind, _ in kinds.values()) == ["league", "league", "league", "match"]
    assert {s.name for s in led.bot_states()} >= {"spare", "r1", "h1"}
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT version_num FROM alembic_version").fetchall() == [(HEAD,)]
        assert "ix_match_kind" in {r[1] for r in c.execute('PRAGMA index_list("match")')}
        finished_seats = c.execute("SELECT count(*) FROM seat JOIN match ON match.id = seat.match_id "
                                   "WHERE match.status = 'finished'").fetchone()[0]
        assert c.execute("SELECT sum(seats) FROM bot_summary").fetchone()[0] == finished_seats > 0  # 0004 filled it
        assert c.execute("SELECT count(*) FROM rating_history WHERE rated AND rated_n IS NULL").fetchone() == (0,)
    r = cardarena("ledger", "upgrade", "--db", str(db), cwd=tmp_path)
    assert r.returncode == 0 and "already: nothing to do" in r.stdout
    r = cardarena("ratings", "recompute", "--db", str(db), cwd=tmp_path)
    assert r.returncode == 0 and "already exact" in r.stdout


def test_a_new_ledger_is_made_at_the_current_version(tmp_path):
    Ledger(str(tmp_path / "new.db")).close()
    with sqlite3.connect(tmp_path / "new.db") as c:
        assert c.execute("SELECT version_num FROM alembic_version").fetchall() == [(HEAD,)]


def test_a_ledger_of_a_newer_cardarena_is_refused_and_not_upgraded(tmp_path):
    db = tmp_path / "new.db"
    Ledger(str(db)).close()
    with sqlite3.connect(db) as c:
        c.execute("UPDATE alembic_version SET version_num = '0099'")
    with pytest.raises(LedgerVersionError, match="made by a newer cardarena"):
        Ledger(str(db))
    r = cardarena("ledger", "upgrade", "--db", str(db), cwd=tmp_path)
    assert r.returncode == 1 and "newer cardarena" in r.stderr and r.stderr.count("\n") == 1


def test_upgrade_of_nothing_is_one_line(tmp_path):
    r = cardarena("ledger", "upgrade", "--db", str(tmp_path / "none.db"), cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.strip() == f"cardarena: no ledger at {str(tmp_path / 'none.db')!r}"
    assert not (tmp_path / "none.db").exists()


def test_the_migrations_run_on_postgresql(postgres_url, tmp_path):
    """A ledger on PostgreSQL taken back to the first release's schema (the migrations' own
    downgrade, and no version table, as 0.1.0 left it) upgrades again with its facts kept."""
    from alembic import command
    led = Ledger(postgres_url)
    for b in ("a", "b", "c"):
        led.add_bot(b)
    for seed in (1, 2):
        m = led.create_match("sixth-card", seed, {}, ["a", "b", "c"])
        led.claim_match(m)
        led.record_match(m, scores=[1, 2, 3], places=[1, 2, 3], faults=[0, 0, 0], forfeited=[False] * 3,
                         steps=[{0: 0, 1: 0, 2: 0}], events=[])
    ratings = [(r.bot, r.mu, r.sigma) for r in led.ratings()]
    led.close()
    engine = create_engine(postgres_url)
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0001")
        conn.execute(text("DROP TABLE alembic_version"))
    with engine.connect() as conn:
        assert "kind" not in {c["name"] for c in inspect(conn).get_columns("match")}
    with pytest.raises(LedgerVersionError, match="schema version 0001"):
        Ledger(postgres_url)
    r = cardarena("ledger", "upgrade", "--db", postgres_url, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    again = Ledger(postgres_url)
    assert [(r.bot, r.mu, r.sigma) for r in again.ratings()] == ratings
    assert [m.kind for m in again.matches(limit=None)] == ["match", "match"]
    assert again.check() == []
    engine.dispose()


@pytest.fixture(params=["file", "postgres"])
def where(request, tmp_path):
    return request.getfixturevalue("postgres_url") if request.param == "postgres" else str(tmp_path / "ledger.db")


def test_upgrading_a_0003_ledger_fills_the_bots_summaries_from_its_matches(where, tmp_path):
    """0004 creates ``bot_summary`` and fills it with what record_match would have kept, and
    gives each rated history row its ``rated_n`` as record_match writes it."""
    from alembic import command
    led = Ledger(where)
    for b in ("a", "b", "c"):
        led.add_bot(b)
    for seed, faults in ((1, [0, 1, 0]), (2, [0, 0, 2])):
        m = led.create_match("sixth-card", seed, {}, ["a", "b", "c"])
        led.record_match(m, scores=[3, 2, 1], places=[1, 2, 3], faults=faults, forfeited=[False] * 3,
                         steps=[], events=[], result_details={
                             "latency": [{"4": 2}, {"6": 1}, None],
                             "faults": [{"seat": s, "step": 0, "kind": "timeout"} for s in range(3) if faults[s]]})
    with led.engine.connect() as conn:
        kept = sorted(tuple(r) for r in conn.execute(text("SELECT * FROM bot_summary")))
        history = conn.execute(text("SELECT * FROM rating_history ORDER BY id")).all()
    led.close()
    engine = create_engine(database_url(where))
    with engine.begin() as conn:
        command.downgrade(_config(conn), "0003")
    with engine.connect() as conn:
        assert "bot_summary" not in inspect(conn).get_table_names()
    with pytest.raises(LedgerVersionError, match="schema version 0003"):
        Ledger(where)
    r = cardarena("ledger", "upgrade", "--db", where, cwd=tmp_path)
    assert r.returncode == 0 and "upgraded from schema version 0003" in r.stdout, r.stdout + r.stderr
    with engine.connect() as conn:
        assert sorted(tuple(r) for r in conn.execute(text("SELECT * FROM bot_summary"))) == kept
        assert conn.execute(text("SELECT * FROM rating_history ORDER BY id")).all() == history  # rated_n too
    engine.dispose()
    assert [r.rated_n for r in history] == [1, 1, 1, 2, 2, 2]
    assert len(kept) == 3 and Ledger(where).check() == []


def test_every_migration_file_is_in_the_chain():
    from alembic.script import ScriptDirectory
    from alembic.config import Config
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    revisions = [r.revision for r in ScriptDirectory.from_config(config).walk_revisions()]
    assert revisions[0] == HEAD and revisions[-1] == "0001" and len(revisions) == len(list((MIGRATIONS / "versions").glob("*.py")))
