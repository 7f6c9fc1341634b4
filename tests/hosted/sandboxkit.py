"""Helpers of the hosted-bot tests: an independent look at /proc for what a sandbox left behind,
and archives built as an attacker builds them."""
from __future__ import annotations

import asyncio
import io
import os
import tarfile

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


def tar_of(*members: tuple) -> bytes:
    """A tar.gz of (name, kind, payload), made member by member as anyone can: kind "file"
    (payload: its text), "dir", "sym" or "hard" (payload: the link's target), "fifo"."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, kind, payload in members:
            info = tarfile.TarInfo(name)
            info.mode = 0o755
            if kind == "file":
                data = payload.encode()
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
                         "fifo": tarfile.FIFOTYPE}[kind]
            info.linkname = payload or ""
            tar.addfile(info)
    return buf.getvalue()


def link_chain(dest_len: int, up: int, rel: str) -> bytes:
    """The archive of CVE-2025-4517, as published: a chain of links past PATH_MAX that Python's
    `data` filter (before 3.11.13) let through, then ``escape`` ``up`` folders above a folder
    whose path is ``dest_len`` long, and the file ``escape/rel`` written through it."""
    steps = "abcdefghijklmnop"
    component = "d" * ((4096 - (dest_len + 1)) // (len(steps) + 1))
    members, path = [], ""
    for step in steps:
        members += [(os.path.join(path, component), "dir", None), (os.path.join(path, step), "sym", component)]
        path = os.path.join(path, component)
    link = os.path.join(*steps, "l" * 254)
    members += [(link, "sym", os.path.join(*[".."] * len(steps))),
                ("escape", "sym", os.path.join(link, *[".."] * up)),
                ("escape/" + rel, "file", "written outside the folder by a submission\n"),
                ("bot.py", "file", "print('hi')\n")]
    return tar_of(*members)


def first_reply(address: str, token: str):
    """What a Play stream opened with ``token`` gets first: "welcome", or the status it ends with."""
    import grpc

    from cardarena.v1 import referee_pb2 as pb, referee_pb2_grpc
    with grpc.insecure_channel(address) as channel:
        call = referee_pb2_grpc.RefereeStub(channel).Play(
            iter([pb.BotMessage(hello=pb.Hello(client="leak"))]), metadata=(("authorization", f"Bearer {token}"),),
            timeout=30)
        try:
            return next(call).WhichOneof("kind")
        except grpc.RpcError as e:
            return e.code()
        finally:
            call.cancel()
