"""Hosted bots end to end, as their authors and a hostile one would use them: `bot submit` to a
real `cardarena serve --ladder`, the versions playing rated ladder matches in real sandboxes with
no author's machine connected, a second version rated on its own, the logs for the owner only,
and hostile submissions that cost only their own seat."""
from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arena"))
from arenakit import ADMIN, Ladders, Served, wait_for  # noqa: E402
from e2ekit import ROOT, cardarena  # noqa: E402
from sandboxkit import first_reply  # noqa: E402

from cardarena.ratings import Ledger  # noqa: E402

pytestmark = pytest.mark.usefixtures("sandboxes")

PY_BOT = """\
import sys
from cardarena.client import run

def decide(decision):
    print("{marker} to play", file=sys.stderr, flush=True)
    return len(decision) - 1

run(decide)
"""

HOSTILE = r"""
import os, socket, sys, time
from cardarena.client import run

attack, ports = sys.argv[1], [int(p) for p in sys.argv[2:]]
say = lambda *a: print(*a, file=sys.stderr, flush=True)


def probe():
    for port in ports:  # TCP: the referee's, PostgreSQL's and the web's ports
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port))
            say("REACHED", port)
        except OSError as e:
            say("net", port, "refused:", e.strerror or e)
    for host in ("127.0.0.1", "10.0.2.2", "8.8.8.8"):  # UDP: the test's listener, and away
        try:
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"eve was here", (host, ports[-1]))
        except OSError as e:
            say("udp", host, "refused:", e.strerror or e)
    targets = open("targets.txt").read().split()  # the ledger, the server's /proc, other bots' files
    for path in ["/root", "/work", "/etc/shadow", *targets]:
        try:
            os.listdir(path) if os.path.isdir(path) else open(path, "rb").read(64)
            say("READ", path)
        except OSError as e:
            say("read", path, "refused:", e.strerror)
    say("pid 1:", open("/proc/1/cmdline").read().replace("\0", " "), open("/proc/1/environ").read())
    say("processes:", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
    say("env:", sorted(os.environ))
    say("token:", os.environ.get("CARDARENA_TOKEN", ""))  # into the log its author reads


def flood():  # 100 MB on stdout in the middle of its match
    chunk = b"x" * (1 << 20)
    for _ in range(100):
        os.write(1, chunk)


if attack == "daemon":  # before gRPC starts (it does not survive a fork): a daemon to outlive
    if os.fork() == 0:  # its match, then a fork bomb of sorts held by the process limit
        os.setsid()
        if os.fork() == 0:
            os.execvp("python3", ["python3", "-c", "import time; time.sleep(3600)", "eve-daemon"])
        os._exit(0)
    for _ in range(400):
        try:
            if os.fork() == 0:
                time.sleep(3)
                os._exit(0)
        except OSError as e:
            say("fork refused:", e.strerror)
            break
    while True:  # the bomb's children gone (reaped): room for gRPC's threads
        try:
            os.wait()
        except ChildProcessError:
            break
elif attack == "probe":
    probe()

done = []


def decide(decision):
    if attack == "flood" and not done:
        done.append(1)
        flood()
    return 0


run(decide)
"""


def _listening(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.connect(str(path))
            return True
        except OSError:  # a socket file a stopped server left
            return False


def _folder(root: Path, name: str, **files: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    for fname, text in files.items():
        (folder / fname.replace("__", ".")).write_text(text)
    return folder


class Authors:
    """Bots registered on the ledger and their tokens: each author uses only their own."""

    def __init__(self, served: Served, *names: str):
        self.served = served
        led = Ledger(served.db)
        self.tokens = {n: led.add_bot(n)[1] for n in names}
        led.close()

    def cli(self, bot: str, *args: str, ok: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
        r = cardarena(*args, "--server", self.served.address, cwd=self.served.workdir,
                      env={"CARDARENA_TOKEN": self.tokens[bot]}, timeout=timeout)
        if ok:
            assert r.returncode == 0, r.stdout + r.stderr
        return r

    def submit(self, bot: str, folder: Path, run: str, *extra: str) -> subprocess.CompletedProcess:
        return self.cli(bot, "bot", "submit", bot, str(folder), "--run", run, *extra)


def _left(marker: str) -> list[str]:
    """The command lines of live sandboxed processes (the sandboxes' uids) that hold ``marker``:
    this test's, not those of another test running beside it."""
    from cardarena.server import sandbox
    found = []
    for pid in sandbox.leftovers():
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(cmd)
    return found


def _none_left(*markers: str) -> None:
    """No sandboxed process of ``markers`` is left: a stopped sandbox's bwrap may stay a zombie
    for a moment until the machine's init reaps it (its parent, the server, is gone)."""
    wait_for("no sandboxed process left", lambda: not any(_left(m) for m in markers), timeout=30,
             explain=lambda: "\n".join(c for m in markers for c in _left(m)))


@pytest.fixture
def arena(tmp_path, ledger_url):
    served = Served(tmp_path, ledger_url(), ["--ladder", "sixth-card:3", "--drain", "20"])
    yield served
    served.close()


def test_authors_submit_python_and_cpp_bots_that_play_rated_without_them(arena, tmp_path):
    authors = Authors(arena, "alice", "bob", "carol")
    arena.start()
    ladders = Ladders(arena.db)
    src = tmp_path / "src"
    alice1 = _folder(src, "alice1", bot__py=PY_BOT.format(marker="alice-v1"))
    r = authors.submit("alice", alice1, "python3 bot.py alice-run")
    assert "alice@1 is alice's active version" in r.stdout
    authors.submit("carol", _folder(src, "carol", bot__py=PY_BOT.format(marker="carol")), "python3 bot.py")
    cpp = src / "cpp"
    cpp.mkdir()
    for f in ("Makefile", "random_bot.cc"):
        shutil.copy(ROOT / "examples" / "cpp" / f, cpp / f)
    r = authors.submit("bob", cpp, "build/random_bot bob-run", "--build", "make -j2")  # (a marker of its own)
    assert "bob@1 is bob's active version" in r.stdout, r.stdout + r.stderr

    wait_for("alice@1, bob@1 and carol@1 each in two finished ladder matches",
             lambda: all(ladders.played_by(b) >= 2 for b in ("alice@1", "bob@1", "carol@1")),
             timeout=300, explain=lambda: ladders.describe() + "\n" + arena.log())

    alice2 = _folder(src, "alice2", bot__py=PY_BOT.format(marker="alice-v2"))
    authors.submit("alice", alice2, "python3 bot.py alice-run")
    wait_for("alice@2 in two finished ladder matches", lambda: ladders.played_by("alice@2") >= 2,
             timeout=300, explain=lambda: ladders.describe() + "\n" + arena.log())

    lines = authors.cli("alice", "bot", "versions", "alice").stdout.splitlines()
    assert [ln.split("\t")[:2] for ln in lines] == [["alice@1", "retired"], ["alice@2", "active"]]
    assert all("sixth-card μ" in ln for ln in lines)
    led = Ledger(arena.db)
    one, two = led.versions("alice")
    assert one.matches >= 2 and two.matches >= 2 and one.ratings and two.ratings
    # no alice@1 match after alice@2 was made active, once its last match ended
    last_one = max(m.id for m in ladders.matches("finished") if "alice@1" in m.bots)
    assert not any("alice@1" in m.bots for m in ladders.matches() if m.id > last_one)

    # the logs: alice@2's own output, a match at a time, for alice's token only
    match_id = next(m.id for m in ladders.matches("finished") if "alice@2" in m.bots)
    logs = authors.cli("alice", "bot", "logs", "alice", "--match", str(match_id)).stdout
    assert f"== alice@2, match {match_id}" in logs and "alice-v2 to play" in logs and "alice-v1" not in logs
    denied = authors.cli("bob", "bot", "logs", "alice", ok=False)
    assert denied.returncode == 1 and "not alice's" in denied.stderr and "alice-v" not in denied.stdout
    assert "alice-v" not in authors.cli("bob", "bot", "logs", "bob").stdout

    wait_for("a sandbox of alice@2 running while the server does", lambda: _left("alice-run"), timeout=60)
    assert arena.stop() == 143
    _none_left("alice-run", "bob-run")
    led.close()

    # two versions compared in a league of the CLI's own, both run sandboxed
    r = cardarena("league", "run", "--game", "sixth-card", "--seats", "3", "--gauntlet", "alice@2", "--bot", "alice@2",
                  "--bot", "alice@1", "--bot", "bob@1", "--bot", "carol@1", "--rounds", "1", "--db", arena.db,
                  cwd=arena.workdir, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gauntlet: alice@2 against each opponent" in r.stdout and "alice@1 " in r.stdout.split("gauntlet:")[1]
    _none_left("alice-run", "bob-run")


@pytest.mark.any_ledger
def test_hostile_submissions_cost_only_their_own_seat(arena, tmp_path):
    authors = Authors(arena, "ada", "bo", "cy", "eve")
    arena.start()
    ledger = Ledger(arena.db)
    src = tmp_path / "src"
    for b in ("ada", "bo", "cy"):
        authors.submit(b, _folder(src, b, bot__py=PY_BOT.format(marker=b)), "python3 bot.py")
    ladder = Ladders(arena.db)
    led_path = Path(arena.db) if "://" not in arena.db else Path("/var/lib/postgresql")
    eve = _folder(src, "eve", hostile__py=HOSTILE, targets__txt="\n".join(map(str, [
        led_path, f"/proc/{arena.proc.pid}/environ", f"/proc/{arena.proc.pid}/cmdline", src / "ada" / "bot.py",
        arena.workdir, ROOT])))
    port = arena.address.rsplit(":", 1)[1]
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # what a datagram out would reach
    listener.bind(("127.0.0.1", 0))
    listener.setblocking(False)
    udp = listener.getsockname()[1]
    for k, attack in enumerate(["flood", "daemon", f"probe {port} 5432 8080 {udp}"], start=1):
        before = {b: ladder.played_by(f"{b}@1") for b in ("ada", "bo", "cy")}
        authors.submit("eve", eve, f"python3 hostile.py {attack}")
        wait_for(f"eve@{k} ({attack}) seated in a finished ladder match",
                 lambda: ladder.played_by(f"eve@{k}") >= 1, timeout=240,
                 explain=lambda: ladder.describe() + "\n" + arena.log())
        wait_for("the other bots playing on", lambda: sum(ladder.played_by(f"{b}@1") - before[b]
                                                          for b in before) >= 3, timeout=240,
                 explain=lambda: ladder.describe())
    assert arena.proc.poll() is None, arena.log()
    logs = authors.cli("eve", "bot", "logs", "eve", "--limit", "100").stdout
    assert "the sandbox was stopped: output over" in logs          # the flood: stopped at its limit
    assert "fork refused" in logs                                  # the bomb: held at the process limit
    assert "REACHED" not in logs and "READ" not in logs            # nothing reached, nothing read
    assert f"net {port} refused" in logs and f"read /proc/{arena.proc.pid}/environ refused" in logs
    assert f"read {led_path} refused" in logs
    assert ADMIN not in logs and "CARDARENA_ADMIN_TOKEN" not in logs and "env: ['CARDARENA_ADDRESS'" in logs
    assert str(arena.proc.pid) not in logs.split("processes:", 1)[1].split("\n", 1)[0]
    # the token its sandbox had, read from its log: revoked with the sandbox, and never good over TCP
    leaked = logs.split("token: ", 1)[1].split("\n", 1)[0].strip()
    assert leaked
    sockets = [p for p in Path(tempfile.gettempdir()).glob("cardarena-hosted-*/*.sock") if _listening(p)]
    assert sockets  # this server's, and any other's running beside it
    for where in [arena.address, *(f"unix:{p}" for p in sockets)]:
        assert first_reply(where, leaked) == grpc.StatusCode.UNAUTHENTICATED, where
    with pytest.raises(BlockingIOError):
        listener.recv(64)  # no datagram came out of the sandbox
    listener.close()
    # in eve's matches, only eve's seat faulted or forfeited: the others played them whole
    eves = [m for m in ladder.matches("finished") if any(b.startswith("eve@") for b in m.bots)]
    assert len(eves) >= 3
    for m in eves:
        detail = ledger.match(m.id)
        for bot, faults, forfeited in zip(detail.bots, detail.faults, detail.forfeited):
            if not bot.startswith("eve@"):
                assert not faults and not forfeited, (m.id, detail.bots, detail.faults, detail.forfeited)
    # the daemons outlived no match of eve@2 (eve@3, running now, makes none)
    assert _left("eve-daemon") == []
    assert arena.stop() == 143
    _none_left("hostile.py", "eve-daemon")
    ledger.close()
