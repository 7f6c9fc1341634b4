"""Bots in any language: Python, Node.js, C++, Go and a bash bot behind the stdin/stdout bridge sit
at the same tables of real leagues (the real CLI, real bot processes, the test's ledger), and the
Java bot at tables with Python and Go; the Go bot's heuristic passes its own tests (`go test`);
the guide's Go bot builds and plays by the guide's own commands, and `make proto-go` gives the
package it imports; the Node.js helper hands its bot the same JSON as the Python SDK; and the
bridge's own conduct: its JSON lines, a bad answer faulted, a crashing bot program.

The Node.js, C++, Go and Java bots need their builds (`make examples`, which .ci/run does):
without them these tests skip, except under CI (the variable CI set), where they must run.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from e2ekit import ROOT, cardarena, check_ready, example, require

from cardarena.ratings import Ledger
from cardarena.server import bridge as bridge_mod

NODE_BOT = ROOT / "examples" / "node" / "random_bot.js"
CPP_BOT = ROOT / "examples" / "cpp" / "build" / "random_bot"
GO_BOT = ROOT / "examples" / "go" / "build" / "random_bot"
JAVA_BOT = ROOT / "examples" / "java" / "build" / "random_bot"
SH_BOT = ROOT / "examples" / "bridge" / "random_bot.sh"

pytestmark = pytest.mark.any_ledger  # the subject is the bots' languages: the SQLite pass only


def missing_tools() -> list[str]:
    missing = []
    if shutil.which("node") is None:
        missing.append("node")
    if not (ROOT / "clients" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir():
        missing.append("clients/node/node_modules (npm install in clients/node)")
    if not os.access(CPP_BOT, os.X_OK):
        missing.append("examples/cpp/build/random_bot (make -C examples/cpp)")
    if not os.access(GO_BOT, os.X_OK):
        missing.append("examples/go/build/random_bot (make -C examples/go)")
    if shutil.which("jq") is None or shutil.which("bash") is None:
        missing.append("bash and jq")
    return missing


@pytest.fixture
def language_bots():
    require(missing_tools())
    return {
        "py": example("random_bot.py"),
        "node": f"node {NODE_BOT}",
        "cpp": str(CPP_BOT),
        "go": str(GO_BOT),
        "sh": f"python -m cardarena.server.cli bridge -- bash {SH_BOT}",
    }


EVERY_GAME = pytest.mark.parametrize(("game", "options"), [
    ("sixth-card", []), ("scout", []), ("unsorted", []), ("three-thirteen", ["--option", "rounds=2"]),
], ids=["sixth-card", "scout", "unsorted", "three-thirteen"])


@EVERY_GAME
def test_python_node_cpp_go_and_bridge_bots_play_a_league_together(workdir, ledger_url, language_bots, game,
                                                                    options):
    play_league_together(workdir, ledger_url("languages"), language_bots, game, options)


@EVERY_GAME
def test_the_java_bot_plays_a_league_with_python_and_go(workdir, ledger_url, game, options):
    """examples/java (a sixth bot would not fit the tables of SCOUT and Unsorted, 3–5 seats)."""
    require([f"{bot.relative_to(ROOT)} (make -C {bot.parent.parent.relative_to(ROOT)})"
             for bot in (JAVA_BOT, GO_BOT) if not os.access(bot, os.X_OK)])
    bots = {"java": str(JAVA_BOT), "py": example("random_bot.py"), "go": str(GO_BOT)}
    play_league_together(workdir, ledger_url("java"), bots, game, options)


def play_league_together(workdir, db: str, bots: dict[str, str], game: str, options: list[str]) -> None:
    """A league of one round at as many seats as bots, through the CLI: every match finished
    without a fault, every bot in every seat once, every bot rated."""
    seats = len(bots)
    args = [a for name, cmd in bots.items() for a in ("--bot", f"{name}={cmd}")]
    r = cardarena("league", "run", "--game", game, *args, *options, "--seats", str(seats), "--rounds", "1",
                  "--seed", "11", "--move-time", "5", "--db", db, "--log-dir", str(workdir / "logs"), cwd=workdir,
                  timeout=180)
    logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
                     for p in sorted((workdir / "logs").glob("*/*.log")))
    assert r.returncode == 0, r.stderr + logs
    assert f"finished: {seats} matches" in r.stdout

    led = Ledger(db)
    (league,) = led.leagues()
    assert league.game == game and league.counts["finished"] == seats
    matches = led.league_matches(league.id)
    assert len(matches) == seats
    for m in matches:
        d = led.match(m.id)
        assert d.status == "finished"
        assert sorted(d.bots) == sorted(bots), "every language at every table"
        assert all(f == 0 for f in d.faults), f"match {m.id}: faults {dict(zip(d.bots, d.faults))}\n{logs}"
        assert not any(d.forfeited)
        assert all(p is not None for p in d.places)
        assert d.steps
    # the seat rotations: every bot sat in every seat once
    for bot in bots:
        assert {led.match(m.id).bots.index(bot) for m in matches} == set(range(seats)), bot
    rows = {row.bot: row for row in led.ratings(game)}
    assert set(rows) == set(bots) and all(row.matches == seats for row in rows.values())


def test_go_bots_heuristic(workdir):
    """examples/go's own tests: the ladder (C2), the card choice on the rules text's example
    (C6, C8, C9) and the row choice (C14's order), run by `go test` through its Makefile."""
    require([] if shutil.which("go") else ["go (apt-get install golang-go and the packages of examples/go/Makefile)"])
    r = subprocess.run(["make", "-s", "-C", str(ROOT / "examples" / "go"), "test"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("ok"), r.stdout


NODE_DUMP = """
const fs = require('fs');
const { run } = require(process.env.NODE_HELPER);
const out = fs.openSync(process.env.DUMP, 'a');
run((d) => {
  fs.writeSync(out, JSON.stringify({view: d.view, actions: d.actions, labels: d.labels, events: d.events}) + '\\n');
  return 0;
});
"""

PY_DUMP = """
import json, os
from cardarena.client import run
out = open(os.environ["DUMP"], "a", encoding="utf-8")
def decide(d):
    out.write(json.dumps({"view": d.view, "actions": d.actions, "labels": d.labels, "events": d.events}) + "\\n")
    out.flush()
    return 0
run(decide)
"""


@pytest.mark.parametrize(("game", "option"), [("sixth-card", "rounds=1"), ("unsorted", "max_deals=1")])
def test_node_helper_gives_the_same_plain_json_as_the_python_sdk(workdir, language_bots, game, option):
    """Every seat answers 0, so the match is the same whichever language seat 0 is written in:
    the Node.js helper must hand its bot exactly the views, actions, labels and events the
    Python SDK hands its bot."""
    (workdir / "dump.js").write_text(NODE_DUMP, encoding="utf-8")
    (workdir / "dump.py").write_text(PY_DUMP, encoding="utf-8")
    first = workdir / "first.py"
    first.write_text("from cardarena.client import run\nrun(lambda d: 0)\n", encoding="utf-8")
    seen = {}
    for lang, cmd in (("node", f"node {workdir / 'dump.js'}"), ("py", f"python {workdir / 'dump.py'}")):
        dump = workdir / f"{lang}.jsonl"
        r = cardarena("play", "--game", game, "--option", option, "--seed", "21", "--bot", f"me={cmd}",
                      "--bot", f"a=python {first}", "--bot", f"b=python {first}", "--log-dir", str(workdir / "logs"),
                      cwd=workdir, env={"DUMP": str(dump), "NODE_HELPER": str(ROOT / "clients" / "node")})
        assert r.returncode == 0, r.stderr
        seen[lang] = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert len(seen["py"]) > 5
    assert seen["node"] == seen["py"]


# ----------------------------------------------------------------------------- the bridge itself
def test_bridge_answers_parse():
    assert bridge_mod.parse_answer('{"choice": 3}') == 3
    assert bridge_mod.parse_answer('{"choice": 0, "note": "ignored"}') == 0
    assert bridge_mod.parse_answer("2") == 2
    for bad in ("", "two", '{"choice": "1"}', '{"pick": 1}', "true", "1.5", "[1]"):
        assert bridge_mod.parse_answer(bad) is None, bad
    assert bridge_mod.exit_code_of(3) == 3 and bridge_mod.exit_code_of(-9) == 137
    assert bridge_mod.exit_code_of(0) == 1, "a program that stops while the referee plays is a failure"


CHILD = textwrap.dedent('''
    import json, os, sys
    record = open(os.environ["BRIDGE_RECORD"], "a", encoding="utf-8")
    decisions = 0
    for line in sys.stdin:
        record.write(line)
        record.flush()
        msg = json.loads(line)
        if msg["type"] != "decision":
            continue
        decisions += 1
        if msg["match_id"] == "crash":
            print("crashing on purpose", file=sys.stderr)
            sys.exit(7)
        if decisions == 2:
            print("this is not an answer", flush=True)
        elif decisions == 3:
            print(len(msg["actions"]) - 1, flush=True)   # a bare integer answers too
        else:
            print(json.dumps({"choice": 0}), flush=True)
''')


def test_bridge_lines_bad_answer_fault_and_crash(tmp_path):
    """One bridge holds both seats of two Sixth Card matches: in the first its program answers
    well except once (a line that is not an answer: one OUT_OF_RANGE fault and a notice line);
    in the second the program crashes, the bridge exits with its code, and the referee plays the
    seats out by default (they forfeit at the fault limit)."""
    from cardarena.server.referee import Referee, TimeControl
    from cardarena.server.service import start_server

    child = tmp_path / "child.py"
    child.write_text(CHILD, encoding="utf-8")
    record = tmp_path / "lines.jsonl"

    async def scenario():
        referee = Referee(None, TimeControl(move_seconds=5.0))
        hosted = await start_server(referee)
        env = {**os.environ, "CARDARENA_ADDRESS": hosted.address,
               "CARDARENA_TOKEN": referee.mint_session_token("br"), "BRIDGE_RECORD": str(record)}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cardarena.server.bridge", "--", sys.executable, str(child),
            env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        try:
            assert not await referee.wait_for_bots(["br"], 20)
            first = await referee.play("sixth-card", ["br", "br"], seed=4, options={"rounds": 1}, match_id="good")
            for _ in range(100):  # the match_end line follows the match
                if '"match_end"' in record.read_text(encoding="utf-8"):
                    break
                await asyncio.sleep(0.05)
            second = await referee.play("sixth-card", ["br", "br"], seed=5, options={"rounds": 1}, match_id="crash",
                                        time_control=TimeControl(move_seconds=0.5, max_faults=1))
            code = await asyncio.wait_for(proc.wait(), 20)
            err = (await proc.stderr.read()).decode()
            return first, second, code, err
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            await hosted.server.stop(grace=0)

    first, second, code, err = asyncio.run(scenario())
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    good = [m for m in lines if m.get("match_id") == "good"]
    kinds = [m["type"] for m in good]
    assert kinds[0] == "match_start" and kinds[-1] == "match_end"
    start = good[0]
    assert start["game"] == "sixth-card" and start["seats"] == [0, 1]
    assert [p["bot"] for p in start["players"]] == ["br", "br"] and start["options"]["rounds"] == 1
    assert start["time_control"]["move_seconds"] == 5.0
    decision = next(m for m in good if m["type"] == "decision")
    assert set(decision) >= {"match_id", "seat", "decision_id", "game", "time_left", "bank_left", "view",
                             "actions", "labels", "events"}
    assert 0 < decision["time_left"] <= 5.0 and decision["game"] == "sixth-card"
    assert decision["view"]["seat"] == decision["seat"] and decision["view"]["hand"]
    assert len(decision["actions"]) == len(decision["labels"]) == len(decision["view"]["hand"])
    assert decision["actions"][0] == {"play": decision["view"]["hand"][0]}
    assert decision["labels"][0] == f"play {decision['view']['hand'][0]}"
    assert any(e["type"] == "deal" for e in decision["events"])
    notices = [m for m in good if m["type"] == "notice"]
    assert [n["kind"] for n in notices] == ["OUT_OF_RANGE"] and "-1" in notices[0]["message"]
    end = good[-1]
    assert end["status"] == "finished" and sorted(r["seat"] for r in end["results"]) == [0, 1]
    assert sum(first.faults) == 1 and not any(first.forfeited), "exactly the one bad line is a fault"

    crash = [m for m in lines if m.get("match_id") == "crash"]
    assert [m["type"] for m in crash][:2] == ["match_start", "decision"]
    assert code == 7, err
    assert "crashing on purpose" in err and "exited with code 7" in err
    assert all(second.forfeited), "the seats of a crashed bot program are played out by default"


def test_the_guides_go_bot_builds_and_plays_as_the_guide_says(tmp_path):
    """clients/README.md, "Go": the whole bot it shows, saved as mybot/main.go of a clone, built
    and played by the guide's own commands (after `make -C examples/go`, as the guide says)."""
    require([] if os.access(GO_BOT, os.X_OK) else ["examples/go/build/random_bot (make -C examples/go)"])
    go_section = (ROOT / "clients" / "README.md").read_text(encoding="utf-8").split("\n## Go\n", 1)[1]
    go_section = go_section.split("\n## ", 1)[0]
    source, = re.findall(r"```go\n(.*?)```", go_section, re.S)
    commands = re.findall(r"```sh\n(.*?)```", go_section, re.S)[-1]
    assert "go build" in commands and "cardarena play" in commands
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # the clone: examples/ beside mybot/
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "main.go").write_text(source, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    r = subprocess.run(["bash", "-e", "-c", commands], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"place \d: seat \d me, score", r.stdout), r.stdout
    (log,) = (tmp_path / "logs").glob("*/me.log")
    assert "panic" not in log.read_text(errors="replace")
    check_ready(str(tmp_path / "mybot" / "mybot"), tmp_path)  # and it comes back after a cut stream


def test_make_proto_go_gives_the_package_the_go_bot_imports(tmp_path):
    """`make proto-go` (proto/generate.py --lang go) runs buf with proto/buf.gen.yaml's Go plugins
    only (the other languages' plugins are not installed everywhere) and writes a GOPATH in which
    the Go bot builds: the import path cardarena/gen/go/cardarena/v1 from managed mode, with
    no go_package in the published protos."""
    buf = Path(sys.executable).parent / "buf"
    require([name for name, found in (("go", shutil.which("go")), ("buf (pip install buf-bin)", buf.exists()),
                                      ("protoc-gen-go-grpc", shutil.which("protoc-gen-go-grpc"))) if not found])
    r = subprocess.run([sys.executable, str(ROOT / "proto" / "generate.py"), "--lang", "go"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    gopath = ROOT / "proto" / "gen" / "go"
    assert (gopath / "src" / "cardarena" / "gen" / "go" / "cardarena" / "v1" / "referee_grpc.pb.go").is_file()
    env = {**os.environ, "GO111MODULE": "off", "GOFLAGS": "", "GOPATH": f"{gopath}:/usr/share/gocode"}
    r = subprocess.run(["go", "build", "-o", str(tmp_path / "bot"), "."], cwd=ROOT / "examples" / "go", env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert os.access(tmp_path / "bot", os.X_OK)
