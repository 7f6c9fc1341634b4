"""`cardarena serve` as its own process, driven by the CLI through the admin service, with a
registered bot that connects by itself using its own token."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import grpc
from e2ekit import CLI, cardarena, example
from grpc_health.v1 import health_pb2, health_pb2_grpc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(address: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with grpc.insecure_channel(address) as ch:
                reply = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
        except grpc.RpcError:
            time.sleep(0.1)
    raise AssertionError("the server never became healthy")


def test_serve_admin_service_and_a_remote_league(workdir, ledger_url):
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "CARDARENA_ADMIN_TOKEN": "admin-secret-for-tests", "CARDARENA_DB": ledger_url()}
    server = subprocess.Popen([*CLI, "serve", "--address", address, "--move-time", "5"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bot = None
    try:
        wait_healthy(address)
        admin = {"CARDARENA_ADMIN_TOKEN": "admin-secret-for-tests"}
        r = cardarena("bot", "add", "remote-1", "--server", address, cwd=workdir, env=admin)
        assert r.returncode == 0, r.stderr
        token = r.stdout.strip()
        # a bot started by its author, connecting with its own token
        bot = subprocess.Popen([sys.executable, example("random_bot.py").split()[1]],
                               env={**os.environ, "CARDARENA_ADDRESS": address, "CARDARENA_TOKEN": token})
        r = cardarena("league", "run", "--server", address, "--game", "sixth-card", "--seats", "3",
                      "--bot", "remote-1", "--bot", f"local-a={example('random_bot.py')}",
                      "--bot", f"local-b={example('heuristic_bot.py')}", "--log-dir", str(workdir / "logs"),
                      cwd=workdir, env=admin)
        assert r.returncode == 0, r.stderr
        for name in ("remote-1", "local-a", "local-b"):
            assert name in r.stdout
        r = cardarena("ratings", "--server", address, "--format", "csv", cwd=workdir, env=admin)
        assert r.returncode == 0 and r.stdout.count("\n") == 4  # header + 3 bots
        r = cardarena("bot", "list", "--server", address, cwd=workdir, env=admin)
        assert "remote-1" in r.stdout and "connected" in r.stdout
        # a wrong admin token is refused, in one line
        r = cardarena("bot", "list", "--server", address, cwd=workdir, env={"CARDARENA_ADMIN_TOKEN": "wrong"})
        assert r.returncode == 1 and "admin token required" in r.stderr and r.stderr.count("\n") == 1
    finally:
        if bot:
            bot.kill()
        server.terminate()
        _, err = server.communicate(timeout=20)
    assert server.returncode == 143, err  # SIGTERM
    assert "admin-secret-for-tests" not in err, "no token in the server's output"
