#!/usr/bin/env python3
"""Hosted bots (``bot submit``) on a real ``cardarena serve --ladder``, and what their sandboxes
cost: run as ``bench/arena.py --hosted N [--seconds S] [--starts K]``.

Printed, all from one run:

- the **sandbox's start cost**: K starts of the same small program (Python importing
  ``cardarena.client`` and exiting; and ``/bin/true``), in a sandbox and as a plain process, side
  by side, wall time from start to exit, median and p90, and their ratio;
- **submit to first rated match**: N Python bots submitted with the CLI to a ladder at no pace;
  per bot, from its ``bot submit`` returning to the end of its first finished ladder match
  (median, max);
- **memory per hosted bot**: the RSS of every process of the sandboxes (their uids, from /proc)
  sampled while the ladder plays, divided by N; and the server's own RSS beside it.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from cardarena.ratings import Ledger
from cardarena.server import sandbox

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "cardarena.server.cli"]
BOT = "import random\nfrom cardarena.client import run\nrun(lambda d: random.randrange(len(d)))\n"
PROBE = "import cardarena.client, grpc\n"


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return f"median {statistics.median(values) * 1000:7.1f} ms, p90 {p90 * 1000:7.1f} ms"


async def start_costs(folder: Path, starts: int) -> None:
    """The same program K times in a sandbox and K times plain, interleaved."""
    for label, command in (("/bin/true", "/bin/true"), ("python3 importing cardarena.client", "python3 probe.py")):
        boxed, plain = [], []
        for _ in range(starts):
            t0 = time.perf_counter()
            box = sandbox.Sandbox(folder, name="bench")
            await box.start(command)
            code = await box.wait()
            await box.stop()
            boxed.append(time.perf_counter() - t0)
            if code != 0:
                raise SystemExit(f"the sandboxed {label} exited {code}: {box.log_tail()}")
            t0 = time.perf_counter()  # plain: this venv's python, where cardarena is installed
            proc = await asyncio.create_subprocess_shell(command.replace("python3", sys.executable), cwd=folder)
            await proc.wait()
            plain.append(time.perf_counter() - t0)
        ratio = statistics.median(boxed) / statistics.median(plain)
        print(f"start to exit, {label}:\n  sandboxed {_ms(boxed)}\n  plain     {_ms(plain)}\n"
              f"  the sandbox costs {ratio:.1f}× a plain start ({(statistics.median(boxed) - statistics.median(plain)) * 1000:.0f} ms more)")


def sandbox_rss() -> int:
    """Bytes of RSS of every process under the sandboxes' uids."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        uid = rss = None
        for line in status.splitlines():
            if line.startswith("Uid:"):
                uid = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
        if uid is not None and rss and sandbox.UID_FIRST <= uid < sandbox.UID_FIRST + sandbox.UID_COUNT:
            total += rss
    return total


def rss_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def hosted_ladder(tmp: Path, bots: int, seconds: float) -> None:
    db = tmp / "hosted.db"
    ledger = Ledger(str(db))
    tokens = {f"h{i:03d}": ledger.add_bot(f"h{i:03d}", owner="bench")[1] for i in range(bots)}
    ledger.close()
    log = open(tmp / "serve.log", "w")
    proc = subprocess.Popen([*CLI, "serve", "--db", str(db), "--address", "127.0.0.1:0", "--no-web", "--rate", "0",
                             "--ladder", "sixth-card:3", "--host-bots"], stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "CARDARENA_ADMIN_TOKEN": "bench"}, start_new_session=True)
    try:
        address = None
        for _ in range(300):
            text = (tmp / "serve.log").read_text()
            if "listening on " in text:
                address = text.split("listening on ", 1)[1].split()[0]
                break
            if proc.poll() is not None:
                raise SystemExit(f"serve exited: {text}")
            time.sleep(0.1)
        folder = tmp / "bot"
        folder.mkdir()
        (folder / "bot.py").write_text(BOT)
        submitted = {}
        for name, token in tokens.items():
            r = subprocess.run([*CLI, "bot", "submit", name, str(folder), "--run", "python3 bot.py", "--server", address],
                               env={**os.environ, "CARDARENA_TOKEN": token}, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"bot submit {name}: {r.stderr}")
            submitted[f"{name}@1"] = datetime.now(timezone.utc)
        samples, server = [], []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(2.0)
            samples.append(sandbox_rss())
            server.append(rss_of(proc.pid))
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        ledger = Ledger(str(db))
        firsts = {}
        for m in ledger.matches(kind="ladder", status="finished", limit=None):
            for b in m.bots:
                at = m.finished_at if m.finished_at.tzinfo else m.finished_at.replace(tzinfo=timezone.utc)
                firsts[b] = min(firsts.get(b, at), at)
        finished = len(ledger.matches(kind="ladder", status="finished", limit=None))
        ledger.close()
        waits = [(firsts[b] - t).total_seconds() for b, t in submitted.items() if b in firsts]
        print(f"\n{bots} hosted Python bots, sixth-card:3 at no pace, {seconds:g} s: {finished} ladder matches")
        if waits:
            print(f"submit to first rated match: median {statistics.median(waits):.1f} s, max {max(waits):.1f} s "
                  f"({len(waits)} of {bots} bots played)")
        if samples:
            per = statistics.median(samples) / bots
            print(f"memory: the sandboxes' RSS {statistics.median(samples) / 2**20:.0f} MB (median of samples), "
                  f"{per / 2**20:.1f} MB a hosted bot; the server {statistics.median(server) / 2**20:.0f} MB")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hosted", type=int, default=6, help="hosted bots on the ladder")
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--starts", type=int, default=20, help="sandbox starts measured")
    args = p.parse_args(argv)
    if (why := sandbox.unavailable()) is not None:
        raise SystemExit(f"no sandboxes here: {why}")
    with tempfile.TemporaryDirectory(prefix="cardarena-bench-") as tmp:
        tmp = Path(tmp)
        os.chmod(tmp, 0o711)
        probe = tmp / "probe"
        probe.mkdir()
        (probe / "probe.py").write_text(PROBE)
        asyncio.run(start_costs(probe, args.starts))
        hosted_ladder(tmp, args.hosted, args.seconds)


if __name__ == "__main__":
    main(sys.argv[1:])
