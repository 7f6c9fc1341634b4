"""The ledger's hosted bots: versions NAME@K with their states, each rated as a bot of its own,
and their logs (SQLite and PostgreSQL)."""
from __future__ import annotations

import pytest

from cardarena.ratings import Ledger, LedgerError
from cardarena.ratings.ledger_hosted import split_version
from cardarena.server.match import RandomBot, play_match


def _version(led, bot="ada", build=None, files=b"files"):
    return led.add_version(bot, files, sha256="0" * 64, size=len(files), run="python3 bot.py", build=build)


def _play(led, bots, seed):
    r = play_match("sixth-card", [RandomBot(seed + s) for s in range(len(bots))], seed=seed)
    mid = led.create_match("sixth-card", seed, r.options, bots)
    led.claim_match(mid)
    led.record_match(mid, scores=list(r.result.scores), places=list(r.result.places), faults=[0] * len(bots),
                     forfeited=[False] * len(bots), steps=r.steps, events=[], result_details={"faults": []})
    return mid


@pytest.fixture
def led(ledger_url):
    led = Ledger(ledger_url())
    for b in ("ada", "bo", "cy"):
        led.add_bot(b)
    yield led
    led.close()


def test_versions_are_numbered_and_one_is_active(led):
    assert _version(led).name == "ada@1" and led.version_info("ada@1").state == "active"
    second = _version(led, files=b"other")
    assert second.name == "ada@2" and second.state == "active"
    assert [(v.name, v.state) for v in led.versions("ada")] == [("ada@1", "retired"), ("ada@2", "active")]
    assert led.version_files("ada@2") == b"other" and led.version_files("ada@1") == b"files"
    assert [v.name for v in led.hosted_versions()] == ["ada@2"]


def test_a_build_decides_whether_the_version_plays(led):
    _version(led)
    building = _version(led, build="make")
    assert building.state == "building"
    assert [v.name for v in led.hosted_versions()] == ["ada@1"]  # the old one plays meanwhile
    failed = led.finish_build("ada@2", False, "error: no rule to make target")
    assert failed.state == "failed" and "no rule" in failed.build_log
    assert [v.name for v in led.hosted_versions()] == ["ada@1"]
    with pytest.raises(LedgerError, match="only a version that built"):
        led.set_version_state("ada@2", "active")
    _version(led, build="make")
    built = led.finish_build("ada@3", True, "ok", files=b"built")
    assert built.state == "active" and led.version_files("ada@3") == b"built"
    assert [(v.name, v.state) for v in led.versions("ada")] == [
        ("ada@1", "retired"), ("ada@2", "failed"), ("ada@3", "active")]
    with pytest.raises(LedgerError, match="not building"):
        led.finish_build("ada@3", True, "again")


def test_activate_and_retire(led):
    _version(led), _version(led)
    assert led.set_version_state("ada@1", "active").state == "active"
    assert led.version_info("ada@2").state == "retired"
    led.set_version_state("ada@1", "retired")
    assert led.hosted_versions() == []
    with pytest.raises(LedgerError, match="has no version 9"):
        led.set_version_state("ada@9", "active")
    with pytest.raises(LedgerError, match="names no version"):
        led.set_version_state("ada", "active")


def test_a_paused_bot_runs_no_version(led):
    _version(led), _version(led, bot="bo")
    led.set_paused("ada", True)
    assert [v.name for v in led.hosted_versions()] == ["bo@1"]


def test_version_names_are_kept_for_versions(led):
    with pytest.raises(LedgerError, match="names version K"):
        led.add_bot("eve@1")
    _version(led)
    with pytest.raises(LedgerError, match="submit to the bot itself"):
        _version(led, bot="ada@1")
    assert split_version("a@b@12") == ("a@b", 12)
    assert led.is_hosted("ada@1") and not led.is_hosted("ada") and not led.is_hosted("ada@2")


def test_each_version_is_rated_on_its_own(led):
    _version(led), _version(led)
    for seed in range(3):
        _play(led, ["ada@1", "bo", "cy"], seed)
    _play(led, ["ada@2", "bo", "cy"], 9)
    one, two = led.versions("ada")
    assert one.matches == 3 and two.matches == 1
    assert [g for g, _, _ in one.ratings] == ["sixth-card"] and [g for g, _, _ in two.ratings] == ["sixth-card"]
    table = {r.bot: r for r in led.ratings("sixth-card")}
    assert table["ada@1"].matches == 3 and table["ada@2"].matches == 1 and "ada" not in table
    # a new version starts fresh: its σ is wider than that of the version with more matches
    assert two.ratings[0][2] > one.ratings[0][2]


def test_logs_are_kept_per_version_and_match(led):
    _version(led), _version(led)
    mid = _play(led, ["ada@2", "bo", "cy"], 1)
    led.add_bot_log("ada@1", None, "one: starting")
    led.add_bot_log("ada@2", mid, "two: thinking hard")
    assert [(n, log.match_id, log.text) for n, log in led.bot_logs("ada")] == [
        ("ada@2", mid, "two: thinking hard"), ("ada@1", None, "one: starting")]
    assert [n for n, _ in led.bot_logs("ada@1")] == ["ada@1"]
    assert [log.text for _, log in led.bot_logs("ada", match_id=mid)] == ["two: thinking hard"]
    assert led.bot_logs("bo") == []
