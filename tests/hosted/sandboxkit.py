"""Helpers of the hosted-bot tests: an independent look at /proc for what a sandbox left behind."""
from __future__ import annotations

import asyncio
import os

from cardarena.server import sandbox


def live_processes(uid: int | None = None, ns: str | None = None) -> list[str]:
    """"PID NAME" of every process (zombies aside) running under ``uid`` or in the pid namespace
    ``ns`` (``pid:[inode]``), read from /proc here, not through the sandbox module."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                status = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
            link = os.readlink(f"/proc/{name}/ns/pid") if ns else None
        except (OSError, ValueError):
            continue
        if status.get("State", "").startswith(("Z", "X")):
            continue
        if (uid is not None and int(status["Uid"].split()[0]) == uid) or (ns is not None and link == ns):
            found.append(f"{name} {status.get('Name', '?').strip()}")
    return found


def left_of(box: sandbox.Sandbox) -> list[str]:
    """What of ``box`` still runs: by its pid namespace, and by its uid when it had its own."""
    own_uid = box.uid if os.geteuid() == 0 else None
    return live_processes(own_uid, box.pid_namespace)


def run(coro):
    return asyncio.run(coro)
