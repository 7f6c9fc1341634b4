"""The `cardarena` CLI: every command, and bad arguments ending as one clear line, exit ≠ 0."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cardarena.ratings import Ledger


EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "python"


def every_value(where: str) -> str:
    """Every value of every table of the ledger at ``where``, as one text (on any backend)."""
    from sqlalchemy import MetaData
    from cardarena.ratings.ledger import make_engine
    engine = make_engine(where)
    tables = MetaData()
    tables.reflect(engine)
    with engine.connect() as c:
        text = "\n".join(repr(row) for t in tables.sorted_tables for row in c.execute(t.select()))
    engine.dispose()
    return text


def assert_one_line_error(code, err, expected_code, *words):
    assert code == expected_code
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cardarena: ")
    for w in words:
        assert w in lines[0]


def test_version(cli):
    code, out, _ = cli("--version")
    assert code == 0 and out.startswith("cardarena ")


def test_help_of_every_command(cli):
    for argv in (["--help"], ["league", "run", "--help"], ["play", "--help"], ["match", "show", "--help"],
                 ["bot", "add", "--help"], ["ratings", "--help"], ["serve", "--help"], ["demo", "--help"]):
        code, out, _ = cli(*argv)
        assert code == 0 and "Usage" in out, argv


def test_games_lists_ids_player_ranges_options(cli):
    code, out, _ = cli("games")
    assert code == 0 and "sixth-card" in out and "2–10 players" in out and "option end_score" in out
    code, out, _ = cli("games", "--format", "json")
    by_id = {g["id"]: g for g in json.loads(out)}
    assert by_id["sixth-card"]["players"] == [2, 10]
    assert any(o["name"] == "exact_cards" for o in by_id["sixth-card"]["options"])


def test_rules_prints_the_text_and_refuses_a_missing_language(cli):
    code, out, _ = cli("rules", "sixth-card")
    assert code == 0 and "The sixth card" in out and "Queen of Spades 5" in out
    for game in ("sixth-card", "unsorted", "scout", "three-thirteen"):  # each text opens with its game's name
        code, out, _ = cli("rules", game)
        assert code == 0 and out.splitlines()[0].lower().startswith(game.replace("-", " ")), out[:200]
    code, _, err = cli("rules", "sixth-card", "--lang", "de")
    assert_one_line_error(code, err, 2, "sixth-card has rules in en")
    code, _, err = cli("rules", "chess")
    assert_one_line_error(code, err, 2, "no game 'chess'")


def test_bot_add_prints_a_token_once_and_list_shows_the_bot(cli, db):
    code, out, err = cli("bot", "add", "alice")
    assert code == 0
    token = out.strip()
    assert len(token) >= 43 and "shown once" in err
    assert token not in every_value(db), "only the token's hash is stored"
    code, _, err = cli("bot", "add", "alice")
    assert_one_line_error(code, err, 1, "alice")
    code, _, err = cli("bot", "add", "two words")
    assert_one_line_error(code, err, 2)
    code, out, _ = cli("bot", "list")
    assert code == 0 and out.startswith("alice\t")


def test_ratings_formats_and_bad_format(cli, db):
    Ledger(db).close()  # an empty ledger (a missing one is an error: tests/test_newcomer.py)
    code, out, _ = cli("ratings", "--format", "json")
    assert code == 0 and json.loads(out) == []
    code, _, err = cli("ratings", "--format", "xml")
    assert_one_line_error(code, err, 2, "table, json, csv or markdown")
    code, _, err = cli("ratings", "--game", "go")
    assert_one_line_error(code, err, 2, "no game 'go'")


@pytest.mark.parametrize("argv,code,words", [
    (["league", "run", "--game", "nope", "--bot", "a=x"], 2, ["no game 'nope'"]),
    (["league", "run", "--bot", "a=x"], 2, ["--game"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=x", "--bot", "b=y", "--seats", "11"], 2, ["2–10 players"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=x", "--bot", "b=y", "--seats", "3"], 2, ["at least 3 bots"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=x", "--bot", "a=y"], 2, ["named twice"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=", "--bot", "b=y"], 2, ["empty"]),
    (["league", "run", "--game", "sixth-card", "--bot", "ghost", "--bot", "b=python y.py"], 1, ["no bot named 'ghost'"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=x", "--bot", "b=y", "--option", "end_score=lots"], 2, ["end_score"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=x", "--bot", "b=y", "--option", "colour=red"], 2, ["no option 'colour'"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=x", "--bot", "b=y", "--rounds", "zero"], 2, ["--rounds"]),
    (["league", "run", "--game", "sixth-card", "--bot", "a=x", "--bot", "b=y", "--move-time", "0"], 2, ["--move-time"]),
    (["match", "show", "999"], 1, ["999"]),
    (["match", "show", "abc"], 2, []),
    (["play", "--game", "sixth-card", "--bot", "a=x"], 2, ["2–10 players"]),
    (["serve", "--tls-cert", "c.pem"], 2, ["--tls-key"]),
    (["no-such-command"], 2, []),
])
def test_bad_arguments_end_as_one_line(cli, db, argv, code, words):
    got, _, err = cli(*argv)
    assert_one_line_error(got, err, code, *words)


def test_a_bot_that_exits_before_connecting_is_named(cli, db, tmp_path):
    code, _, err = cli("play", "--game", "sixth-card", "--bot", f"a=python {EXAMPLES / 'random_bot.py'}",
                       "--bot", f"b={sys.executable} -c 'raise SystemExit(3)'", "--log-dir", str(tmp_path / "logs"))
    assert_one_line_error(code, err, 1, "bot b exited with code 3 before connecting")


def test_a_bot_program_gets_its_token_and_none_of_the_clis_secrets(cli, db, tmp_path, monkeypatch):
    """The admin token, the ledger's URL (which may hold a password) and PostgreSQL's password
    stay with the CLI; the bot program gets its own address and token (and the rest of the
    environment: PATH, a virtualenv)."""
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", "admin-secret")
    monkeypatch.setenv("PGPASSWORD", "pg-secret")
    monkeypatch.setenv("CARDARENA_EXAMPLE_SETTING", "kept")
    spy = tmp_path / "spy.py"
    spy.write_text("import json, os, runpy, sys\n"
                   "json.dump(dict(os.environ), open(sys.argv.pop(1), 'w'))\n"
                   f"runpy.run_path({str(EXAMPLES / 'random_bot.py')!r}, run_name='__main__')\n")
    code, _, err = cli("play", "--game", "sixth-card", "--bot", f"a=python {spy} {tmp_path / 'a.json'}",
                       "--bot", f"b=python {EXAMPLES / 'random_bot.py'}", "--log-dir", str(tmp_path / "logs"))
    assert code == 0, err
    env = json.loads((tmp_path / "a.json").read_text())
    assert env["CARDARENA_TOKEN"] and env["CARDARENA_ADDRESS"] and env["CARDARENA_EXAMPLE_SETTING"] == "kept"
    assert not {"CARDARENA_ADMIN_TOKEN", "CARDARENA_DB", "PGPASSWORD"} & env.keys(), sorted(env)
    assert db not in env.values()


def test_play_prints_the_match_as_it_happens_and_records_it(cli, db, tmp_path):
    bots = [f"--bot=p{i}=python {EXAMPLES / 'random_bot.py'}" for i in range(3)]
    code, out, err = cli("play", "--game", "sixth-card", *bots, "--seed", "4", "--record",
                         "--log-dir", str(tmp_path / "logs"))
    assert code == 0, err
    assert "revealed" in out and "game over" in out and "place 1" in out
    assert "recorded as match 1" in out
    code, out, _ = cli("match", "list")
    assert code == 0 and out.startswith("1\tsixth-card\tfinished")
    code, omniscient, _ = cli("match", "show", "1")
    code2, seat0, _ = cli("match", "show", "1", "--seat", "0")
    assert code == code2 == 0
    # a seat's own deal is in its view of the match, the others' are not
    assert "seat 0 is dealt" in seat0 or "dealt" in seat0
    assert omniscient.count("\n") > seat0.count("\n")
    code, out, _ = cli("match", "export", "1")
    exported = json.loads(out)
    assert exported["status"] == "finished" and exported["events"] and exported["steps"]
    code, _, err = cli("match", "show", "1", "--seat", "7")
    assert_one_line_error(code, err, 2, "seats 0–2")
