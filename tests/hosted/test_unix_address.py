"""Bots reach the referee over a Unix socket (``CARDARENA_ADDRESS=unix:/path``), as hosted bots
do from their sandbox: a real `cardarena serve --address unix:…`, the Python SDK and the Node
helper each playing a league through it, then a bot in a sandbox with only the socket bound in."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sandboxkit import first_reply, left_of, run

from cardarena.server.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "cardarena.server.cli"]
ADMIN = {"CARDARENA_ADMIN_TOKEN": "admin-secret-for-the-unix-tests"}
RANDOM_BOT = ROOT / "examples" / "python" / "random_bot.py"


def cardarena(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=cwd, env={**os.environ, **ADMIN}, capture_output=True, text=True,
                          timeout=240)


class Served:
    def __init__(self, folder: Path, address: str, server: subprocess.Popen):
        self.folder, self.address, self.server = folder, address, server
        self.socket = Path(address.removeprefix("unix:"))

    def add_bot(self, name: str) -> str:
        r = cardarena("bot", "add", name, "--server", self.address, cwd=self.folder)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip().splitlines()[0]

    def league(self, *bots: str) -> str:
        """A league of sixth-card among ``bots`` (registered names or NAME=COMMAND) on this server."""
        args = [a for bot in bots for a in ("--bot", bot)]
        r = cardarena("league", "run", "--server", self.address, "--game", "sixth-card", "--seats", str(len(bots)),
                      *args, "--log-dir", str(self.folder / "logs"), cwd=self.folder)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout


@pytest.fixture(scope="module")
def served():
    """`cardarena serve` listening on a Unix socket only, in a folder others may pass (0711) so
    a sandbox's uid reaches the socket."""
    folder = Path(tempfile.mkdtemp(prefix="cardarena-unix-"))
    folder.chmod(0o711)
    address = f"unix:{folder / 'referee.sock'}"
    env = {**os.environ, **ADMIN, "CARDARENA_DB": str(folder / "ledger.db")}
    server = subprocess.Popen([*CLI, "serve", "--address", address, "--no-web", "--move-time", "5"], cwd=folder,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with grpc.insecure_channel(address) as ch:
                    reply = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        break
            except grpc.RpcError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "the server never became healthy"
            time.sleep(0.1)
        yield Served(folder, address, server)
    finally:
        server.terminate()
        try:
            server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()
        shutil.rmtree(folder, ignore_errors=True)


def node_helper_missing() -> str | None:
    if shutil.which("node") is None:
        return "node"
    if not (ROOT / "clients" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir():
        return "the Node helper's packages (make examples)"
    return None


@pytest.mark.parametrize("language", ["python", "node"])
def test_the_sdk_plays_a_league_over_a_unix_socket(served, language):
    if language == "node" and (missing := node_helper_missing()):
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {missing}")
        pytest.skip(f"not here: {missing}")
    name = f"unix-{language}"
    token = served.add_bot(name)
    program = ([sys.executable, str(RANDOM_BOT)] if language == "python"
               else ["node", str(ROOT / "examples" / "node" / "random_bot.js")])
    bot = subprocess.Popen(program, env={**os.environ, "CARDARENA_ADDRESS": served.address, "CARDARENA_TOKEN": token},
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out = served.league(name, f"local-{language}-a=python {RANDOM_BOT}", f"local-{language}-b=python {RANDOM_BOT}")
    finally:
        bot.terminate()
        log, _ = bot.communicate(timeout=30)
    standings = out.split("ratings for")[0]
    row = next(line for line in standings.splitlines() if f" {name} " in line)
    assert row.split()[-2:] == ["0", "0"], f"faults and forfeits of {name}: {row}\n{log}"


def test_a_sandboxed_bot_plays_through_the_bound_socket(served, sandboxes, bot_dir):
    token = served.add_bot("unix-boxed")
    files = bot_dir(random_bot__py=RANDOM_BOT.read_text())

    async def go() -> tuple[str, Sandbox]:
        import asyncio
        box = Sandbox(files, name="unix-boxed", socket=served.socket, env={"CARDARENA_TOKEN": token})
        await box.start("exec python3 random_bot.py")
        try:
            out = await asyncio.to_thread(served.league, "unix-boxed", f"local-c=python {RANDOM_BOT}",
                                          f"local-d=python {RANDOM_BOT}")
        finally:
            await box.stop()
        return out, box
    out, box = run(go())
    standings = out.split("ratings for")[0]
    row = next(line for line in standings.splitlines() if " unix-boxed " in line)
    assert row.split()[-2:] == ["0", "0"], f"faults and forfeits: {row}\n{box.log_tail()}"
    assert left_of(box) == []


def test_a_hosted_bots_token_opens_a_stream_over_the_unix_socket_only(tmp_path):
    """A hosted bot's token (``unix_only``) is in its sandbox's environment, and the bot can print
    it into the log its author reads: over TCP it is an unknown token; over the socket, the bot,
    until its sandbox stops and the token is revoked (the log is read after that)."""
    import asyncio

    from cardarena.server.referee import Referee
    from cardarena.server.service import start_server

    async def first_message(address: str, token: str):  # off the loop: the referee runs on it
        return await asyncio.to_thread(first_reply, address, token)

    async def scenario():
        referee = Referee()
        socket = tmp_path / "referee.sock"
        hosted = await start_server(referee, "127.0.0.1:0", unix_socket=str(socket))
        try:
            hosted_token = referee.mint_session_token("ada@1", unix_only=True)
            local_token = referee.mint_session_token("bo")
            seen = [await first_message(hosted.address, hosted_token),
                    await first_message(f"unix:{socket}", hosted_token),
                    await first_message(hosted.address, local_token)]
            referee.revoke_session_token(hosted_token)  # its sandbox stopped
            return seen + [await first_message(f"unix:{socket}", hosted_token)]
        finally:
            await hosted.server.stop(grace=0)

    over_tcp, over_socket, other_over_tcp, revoked = asyncio.run(scenario())
    assert over_tcp == revoked == grpc.StatusCode.UNAUTHENTICATED
    assert over_socket == other_over_tcp == "welcome"
