"""The deal's commitment on the bots' side: the Python SDK, the Node.js helper and the bridge.

MatchStart.deal_commitment is the lowercase hex SHA-256 of
``cardarena-deal:v1:{game}:{match_id}:{seed}:{salt}``; MatchEnd.seed and MatchEnd.deal_salt
reveal the deal once it is spent. The SDK (``cardarena.client.play``) and the Node.js helper
check every revealed deal: INFO on a match, ERROR naming the match and both hashes on a
mismatch (and the bot's hook), nothing when there is nothing to check. The Python SDK is fed
real protobuf messages by a stand-in referee over real gRPC; the Node.js helper gets the bytes of
the same messages, decoded by its own deserializer and handed to its stream's message handler.

The Node.js test needs node and clients/node/node_modules (`make examples`): without them it
skips, except under CI (the variable CI set), where it must run.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from cardarena.client import bot as sdk
from cardarena.client.deal import DealCheck, deal_commitment
from cardarena.server import bridge as bridge_mod
from cardarena.v1 import referee_pb2 as pb, referee_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
NODE_HELPER = ROOT / "clients" / "node"

GAME, MATCH, SEED, SALT = "sixth-card", "7", 12345, "00112233445566778899aabbccddeeff"
# computed here, not by the code under test
VECTOR = hashlib.sha256(f"cardarena-deal:v1:{GAME}:{MATCH}:{SEED}:{SALT}".encode("utf-8")).hexdigest()
OTHER_SALT = "ffeeddccbbaa99887766554433221100"


def start(match_id=MATCH, game=GAME, committed=VECTOR) -> pb.MatchStart:
    return pb.MatchStart(match_id=match_id, game=game, seats=[0], players=[pb.Player(seat=0, bot="me")],
                         deal_commitment=committed)


def end(match_id=MATCH, seed=str(SEED), salt=SALT) -> pb.MatchEnd:
    return pb.MatchEnd(match_id=match_id, status="finished", seed=seed, deal_salt=salt,
                       results=[pb.SeatResult(seat=0, bot="me", score=3.0, place=1)])


def wire(msg: pb.MatchStart | pb.MatchEnd) -> pb.RefereeMessage:
    """The message as the SDK receives it: inside a RefereeMessage, through its bytes."""
    kind = "match_start" if isinstance(msg, pb.MatchStart) else "match_end"
    return pb.RefereeMessage.FromString(pb.RefereeMessage(**{kind: msg}).SerializeToString())


# ----------------------------------------------------------------------------- the function
def test_deal_commitment_against_a_vector_computed_here():
    assert VECTOR == "3ba936b67fbe9d1905bc8dd82d19589629b9c3fe9b57dc0730aeeeb179cefcae"
    assert deal_commitment(GAME, MATCH, SEED, SALT) == VECTOR
    assert deal_commitment(GAME, int(MATCH), str(SEED), SALT) == VECTOR, "the seed as MatchEnd's text"
    assert sdk.deal_commitment is deal_commitment, "reachable from cardarena.client.bot too"
    for changed in ((GAME, MATCH, SEED + 1, SALT), (GAME, MATCH, SEED, OTHER_SALT), ("scout", MATCH, SEED, SALT),
                    (GAME, "8", SEED, SALT)):
        assert deal_commitment(*changed) != VECTOR, changed
    with pytest.raises(ValueError):
        deal_commitment(GAME, MATCH, "12x", SALT)


def test_the_sdk_and_the_server_make_the_same_commitment():
    from cardarena.server import deal as server_deal
    for seed in (0, 1, SEED, 2**63 - 1):
        salt = server_deal.new_salt()
        made = server_deal.commitment("three-thirteen", "league-3-17", seed, salt)
        assert deal_commitment("three-thirteen", "league-3-17", str(seed), salt) == made


def test_the_sdk_does_not_import_the_server():
    code = ("import sys, cardarena.client, cardarena.client.deal; "
            "print([m for m in sys.modules if m.startswith('cardarena.server')])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# ----------------------------------------------------------------------------- the check itself
def records(caplog, level=logging.DEBUG):
    return [r for r in caplog.records if r.name == "cardarena.client" and r.levelno >= level]


def test_a_good_deal_logs_info_and_the_match_is_forgotten(caplog):
    caplog.set_level(logging.DEBUG, logger="cardarena.client")
    check = DealCheck()
    check.start(wire(start()).match_start)
    assert check.matches == {MATCH: (GAME, VECTOR)}
    assert check.end(wire(end()).match_end) is True
    assert [r.getMessage() for r in records(caplog, logging.INFO)] == [
        f"match {MATCH}: the deal verified against its commitment"]
    assert not records(caplog, logging.WARNING)
    assert check.matches == {}


@pytest.mark.parametrize(("seed", "salt"), [
    (str(SEED + 1), SALT), (str(SEED), OTHER_SALT), ("12x", SALT), (str(SEED), ""), ("", SALT),
], ids=["seed", "salt", "seed-not-decimal", "salt-missing", "seed-missing"])
def test_a_tampered_deal_logs_error_and_tells_the_bot(caplog, seed, salt):
    caplog.set_level(logging.DEBUG, logger="cardarena.client")
    told = []

    class Bot:
        def on_deal_mismatch(self, match_id, committed, computed):
            told.append((match_id, committed, computed))

    check = DealCheck(Bot())
    check.start(wire(start()).match_start)
    assert check.end(wire(end(seed=seed, salt=salt)).match_end) is False
    (error,) = records(caplog, logging.WARNING)
    assert error.levelno == logging.ERROR
    text = error.getMessage()
    assert f"match {MATCH}:" in text and VECTOR in text
    assert not [r for r in records(caplog) if r.levelno == logging.INFO], "no verified line"
    (call,) = told
    assert call[:2] == (MATCH, VECTOR)
    if seed.isdigit() and salt:
        assert call[2] == hashlib.sha256(f"cardarena-deal:v1:{GAME}:{MATCH}:{seed}:{salt}".encode()).hexdigest()
        assert call[2] in text, "the computed commitment is named"
    assert check.matches == {}


def test_nothing_to_check_is_quiet(caplog):
    """An older referee (no commitment), a deal not revealed yet (another rotation of a duplicate
    set, an aborted match), an end of a match never started: DEBUG at most, nothing kept."""
    caplog.set_level(logging.DEBUG, logger="cardarena.client")
    told = []
    bot = type("Bot", (), {"on_deal_mismatch": lambda self, *a: told.append(a)})()
    check = DealCheck(bot)
    check.start(start(match_id="old", committed=""))
    assert check.end(end(match_id="old")) is None
    check.start(start(match_id="rotation"))
    assert check.end(pb.MatchEnd(match_id="rotation", status="finished")) is None
    check.start(start(match_id="aborted"))
    assert check.end(pb.MatchEnd(match_id="aborted", status="aborted")) is None
    assert check.end(end(match_id="never-started")) is None
    assert not records(caplog, logging.INFO) and not told
    assert check.matches == {}


def test_a_second_start_cannot_replace_the_commitment(caplog):
    caplog.set_level(logging.DEBUG, logger="cardarena.client")
    check = DealCheck()
    check.start(start())
    forged = deal_commitment(GAME, MATCH, SEED + 1, SALT)
    check.start(start(committed=forged))
    assert [r.levelno for r in records(caplog, logging.WARNING)] == [logging.ERROR]
    assert check.end(end(seed=str(SEED + 1))) is False, "checked against the first commitment"


def test_memory_is_bounded_and_the_check_never_raises(caplog):
    caplog.set_level(logging.DEBUG, logger="cardarena.client")
    check = DealCheck(kept=3)
    for i in range(10):  # matches that never end for this bot
        check.start(start(match_id=str(i)))
    assert list(check.matches) == ["7", "8", "9"]

    class Raising:
        def on_deal_mismatch(self, *args):
            raise RuntimeError("the bot's own bug")

    check = DealCheck(Raising())
    check.start(start())
    assert check.end(end(seed="1")) is False  # the hook's exception is logged, not raised
    assert any("on_deal_mismatch" in r.getMessage() for r in records(caplog, logging.ERROR))
    assert check.end(object()) is None  # not even a message: logged, not raised
    check.start(object())


# ----------------------------------------------------------------------------- through play()
class StandIn(referee_pb2_grpc.RefereeServicer):
    """A referee that says what it is told to, then ends the stream."""

    def __init__(self, messages: list[pb.RefereeMessage]):
        self.messages = messages

    async def Play(self, request_iterator, context):
        hello = await request_iterator.__anext__()
        assert hello.WhichOneof("kind") == "hello"
        yield pb.RefereeMessage(welcome=pb.Welcome(bot="me", server_version="stand-in"))
        for m in self.messages:
            yield m


def play_against(messages: list[pb.RefereeMessage], bot) -> None:
    async def scenario():
        server = grpc.aio.server()
        referee_pb2_grpc.add_RefereeServicer_to_server(StandIn(messages), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            await asyncio.wait_for(sdk.play(bot, f"127.0.0.1:{port}", "token", retry_seconds=5), 30)
        finally:
            await server.stop(grace=0)
    asyncio.run(scenario())


def test_play_checks_every_revealed_deal(caplog):
    """The SDK's own loop, over gRPC: a good deal (INFO), a tampered seed and a tampered salt
    (ERROR and the hook, before on_end), an older referee and an unrevealed deal (quiet)."""
    caplog.set_level(logging.DEBUG, logger="cardarena.client")
    seen = []

    class Bot:
        def decide(self, decision):
            return 0

        def on_start(self, m):
            seen.append(("start", m.match_id, m.deal_commitment))

        def on_end(self, m):
            seen.append(("end", m.match_id, m.seed, m.deal_salt))

        def on_deal_mismatch(self, match_id, committed, computed):
            seen.append(("mismatch", match_id, committed, computed))

    committed = {m: deal_commitment(GAME, m, SEED, SALT) for m in ("good", "seed", "salt", "rotation")}
    messages = [wire(start(match_id=m, committed=c)) for m, c in committed.items()]
    messages.append(wire(start(match_id="old", committed="")))
    messages += [wire(end(match_id="good")), wire(end(match_id="seed", seed=str(SEED + 1))),
                 wire(end(match_id="salt", salt=OTHER_SALT)), wire(pb.MatchEnd(match_id="rotation", status="finished")),
                 wire(end(match_id="old"))]
    play_against(messages, Bot())

    info = [r.getMessage() for r in records(caplog, logging.INFO) if r.levelno == logging.INFO]
    assert "match good: the deal verified against its commitment" in info
    assert not any(re.match(r"match (seed|salt|rotation|old):", line) for line in info), info
    errors = {r.getMessage().split(":", 1)[0]: r.getMessage() for r in records(caplog, logging.ERROR)}
    assert set(errors) == {"match seed", "match salt"}, errors
    bad_seed = deal_commitment(GAME, "seed", SEED + 1, SALT)
    bad_salt = deal_commitment(GAME, "salt", SEED, OTHER_SALT)
    assert committed["seed"] in errors["match seed"] and bad_seed in errors["match seed"]
    assert committed["salt"] in errors["match salt"] and bad_salt in errors["match salt"]
    assert not [r for r in records(caplog, logging.WARNING) if r.levelno == logging.WARNING]
    mismatches = [s for s in seen if s[0] == "mismatch"]
    assert mismatches == [("mismatch", "seed", committed["seed"], bad_seed),
                          ("mismatch", "salt", committed["salt"], bad_salt)]
    assert seen.index(mismatches[0]) + 1 == seen.index(("end", "seed", str(SEED + 1), SALT)), "the hook before on_end"
    assert ("start", "good", committed["good"]) in seen and ("end", "good", str(SEED), SALT) in seen


def test_play_survives_a_hook_that_raises(caplog):
    caplog.set_level(logging.DEBUG, logger="cardarena.client")
    ended = []

    class Bot:
        def decide(self, decision):
            return 0

        def on_end(self, m):
            ended.append(m.match_id)

        async def on_deal_mismatch(self, match_id, committed, computed):
            raise RuntimeError("the bot's own bug")

    play_against([wire(start(match_id="a")), wire(end(match_id="a", seed="1")),
                  wire(start(match_id="b", committed=deal_commitment(GAME, "b", SEED, SALT))),
                  wire(end(match_id="b"))], Bot())
    assert ended == ["a", "b"], "the loop went on after the hook raised"
    assert any("on_deal_mismatch" in r.getMessage() for r in records(caplog, logging.ERROR))
    assert "match b: the deal verified against its commitment" in [r.getMessage() for r in records(caplog)]


# ----------------------------------------------------------------------------- the bridge
def test_bridge_lines_carry_the_deal():
    s = bridge_mod.match_start_line(wire(start()).match_start)
    e = bridge_mod.match_end_line(wire(end()).match_end)
    assert s["deal_commitment"] == VECTOR and s["match_id"] == MATCH and s["game"] == GAME
    assert e["seed"] == str(SEED) and e["deal_salt"] == SALT
    assert json.loads(bridge_mod.encode(e))["seed"] == str(SEED)
    old_s = bridge_mod.match_start_line(pb.MatchStart(match_id="x", game=GAME))
    old_e = bridge_mod.match_end_line(pb.MatchEnd(match_id="x", status="aborted"))
    assert old_s["deal_commitment"] == "" and old_e["seed"] == "" and old_e["deal_salt"] == ""
    doc = bridge_mod.__doc__
    assert '"deal_commitment"' in doc and '"seed", "deal_salt"' in doc, "the protocol description names them"


def test_the_guides_hand_check_verifies_the_vector():
    """clients/README.md, "Checking the deal": its Python lines, run as written."""
    section = (ROOT / "clients" / "README.md").read_text(encoding="utf-8").split("\n## Checking the deal\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(code.strip().splitlines()) <= 5
    assert VECTOR in code
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "the deal verified"
    tampered = code.replace('"12345"', '"12346"')
    assert tampered != code
    r = subprocess.run([sys.executable, "-c", tampered], capture_output=True, text=True, timeout=60)
    assert r.stdout.startswith("MISMATCH") and VECTOR in r.stdout


# ----------------------------------------------------------------------------- the Node.js helper
NODE_SCRIPT = r"""
const helper = require(process.env.NODE_HELPER);
const Play = helper.loadReferee().service.Play;   // what the helper's stream decodes with
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = { starts: [], ends: [], mismatches: [], stderr: [], returned: [] };
console.error = (...args) => out.stderr.push(args.map(String).join(' '));
const opts = {
  onStart: (m) => out.starts.push(m),
  onEnd: (m) => out.ends.push(m),
  onDealMismatch: (...args) => out.mismatches.push(args),
};
const deals = new helper.DealCheck(opts.onDealMismatch);
const sent = [];
for (const b64 of input.messages) {
  helper.handleMessage(Play.responseDeserialize(Buffer.from(b64, 'base64')), () => 0, opts, (m) => sent.push(m), deals);
}
out.left = deals.matches.size;
out.vector = helper.dealCommitment(input.game, input.match_id, input.seed, input.salt);
out.vectorBig = helper.dealCommitment(input.game, input.match_id, BigInt(input.seed), input.salt);
out.big = helper.dealCommitment('scout', 'm', '9223372036854775807', input.salt);
process.stdout.write(JSON.stringify(out));
"""


def node_missing() -> list[str]:
    missing = []
    if shutil.which("node") is None:
        missing.append("node")
    if not (NODE_HELPER / "node_modules" / "@grpc" / "grpc-js").is_dir():
        missing.append("clients/node/node_modules (npm install in clients/node)")
    return missing


def test_node_helper_checks_the_deal():
    missing = node_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must build the Node.js helper (make examples); missing: {', '.join(missing)}")
        pytest.skip(f"not built here: {', '.join(missing)} (run `make examples`)")
    committed = {m: deal_commitment(GAME, m, SEED, SALT) for m in ("good", "seed", "salt", "rotation")}
    messages = [wire(start(match_id=m, committed=c)) for m, c in committed.items()]
    messages.append(wire(start(match_id="old", committed="")))
    messages += [wire(end(match_id="good")), wire(end(match_id="seed", seed=str(SEED + 1))),
                 wire(end(match_id="salt", salt=OTHER_SALT)), wire(pb.MatchEnd(match_id="rotation", status="finished")),
                 wire(end(match_id="old"))]
    payload = {"messages": [base64.b64encode(m.SerializeToString()).decode() for m in messages],
               "game": GAME, "match_id": MATCH, "seed": str(SEED), "salt": SALT}
    env = {**os.environ, "NODE_HELPER": str(NODE_HELPER), "CARDARENA_LOG": "INFO"}
    r = subprocess.run(["node", "-e", NODE_SCRIPT], input=json.dumps(payload), capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)

    assert out["vector"] == out["vectorBig"] == VECTOR
    assert out["big"] == deal_commitment("scout", "m", 2**63 - 1, SALT), "a 63-bit seed is not rounded"
    assert [s["deal_commitment"] for s in out["starts"]] == [*committed.values(), ""]
    ends = {e["match_id"]: e for e in out["ends"]}
    assert (ends["good"]["seed"], ends["good"]["deal_salt"]) == (str(SEED), SALT)
    assert (ends["rotation"]["seed"], ends["rotation"]["deal_salt"]) == ("", "")

    bad_seed = deal_commitment(GAME, "seed", SEED + 1, SALT)
    bad_salt = deal_commitment(GAME, "salt", SEED, OTHER_SALT)
    assert out["mismatches"] == [["seed", committed["seed"], bad_seed], ["salt", committed["salt"], bad_salt]]
    loud = [line for line in out["stderr"] if "DOES NOT MATCH" in line]
    assert len(loud) == 2
    assert "match seed" in loud[0] and committed["seed"] in loud[0] and bad_seed in loud[0]
    assert "match salt" in loud[1] and committed["salt"] in loud[1] and bad_salt in loud[1]
    quiet = [line for line in out["stderr"] if "DOES NOT MATCH" not in line]
    assert quiet == ["cardarena bot: match good: the deal verified against its commitment"], out["stderr"]
    assert out["left"] == 0, "every ended match forgotten"
