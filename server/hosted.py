"""Hosted bots, run by the server: each active version the ledger keeps (``bot submit``) is
unpacked once, built once in a sandbox if it has a build command, and run in a sandbox
(:mod:`.sandbox`) that reaches the referee only over its Unix socket, with a token of this
server's (``Referee.mint_session_token``).

On the arena, a hosted bot plays one match at a time in a fresh sandbox: the next one is started
when a match ends, so that its output is kept a match (``bot logs``) and nothing it started
outlives its match. In a league (``league run``), one sandbox plays the whole league.

Design notes: docs/hosted.md.
"""
from __future__ import annotations

import asyncio
import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import bundle, sandbox as sandboxes

log = logging.getLogger("cardarena.hosted")

#: Seconds a started sandbox gets to connect and say hello before it is stopped (and retried).
CONNECT_SECONDS = 60.0
#: Seconds between the reads of the ledger's active versions (new submissions, retirements).
POLL_SECONDS = 2.0
#: The longest wait before a sandbox that fails without playing is started again.
MAX_BACKOFF = 60.0


@dataclass
class _Runner:
    name: str                 # NAME@K: the version, and the bot row it plays as
    run: str
    folder: Path
    task: asyncio.Task | None = None
    box: object | None = None
    ended: asyncio.Event = field(default_factory=asyncio.Event)   # its match ended: recycle
    match_id: int | None = None
    started: int = 0           # sandboxes started
    played: int = 0            # matches it ended


class Hosting:
    """The hosted bots of one server (module docstring). ``start()`` keeps them running until
    ``stop()``; with an arena, its hooks tell each bot's match start and end."""

    def __init__(self, referee, ledger, socket: Path, workdir: Path, *, arena=None,
                 limits: sandboxes.Limits = sandboxes.Limits(), poll: float = POLL_SECONDS,
                 connect_seconds: float = CONNECT_SECONDS, only: Callable[[str], bool] | None = None,
                 states: tuple[str, ...] = ("active",), builds: bool | None = None):
        self.referee, self.ledger, self.socket, self.workdir = referee, ledger, Path(socket), Path(workdir)
        self.arena = arena
        self.limits = limits
        self.poll = poll
        self.connect_seconds = connect_seconds
        self.only = only              # which versions to run (league run: its bots); None: every one
        self.states = states          # of these states (league run: retired ones too)
        self.builds = only is None if builds is None else builds   # build what is submitted
        self.runners: dict[str, _Runner] = {}
        self.building: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._builds: set[asyncio.Task] = set()
        self._stopping = False
        if arena is not None:
            arena.on_seated, arena.on_played = self._seated, self._played

    # ----- the arena's hooks ------------------------------------------------------------------
    def _seated(self, match_id: int, bots: list[str]) -> None:
        for b in bots:
            if (r := self.runners.get(b)) is not None:
                self.arena.held.add(b)  # one match at a time, whatever its hello asked
                r.match_id = match_id

    def _played(self, match_id: int | None, bots: list[str]) -> None:
        if match_id is None:
            return
        for b in bots:
            if (r := self.runners.get(b)) is not None and r.match_id == match_id:
                r.ended.set()

    # ----- life ---------------------------------------------------------------------------
    def start(self) -> asyncio.Task:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._task = asyncio.create_task(self._run(), name="hosted bots")
        return self._task

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        """Stop every sandbox (their output kept as logs) and every build."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
        tasks = [r.task for r in self.runners.values() if r.task is not None] + list(self._builds)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*(t for t in [self._task, *tasks] if t is not None), return_exceptions=True)
        shutil.rmtree(self.workdir, ignore_errors=True)

    async def _run(self) -> None:
        while True:
            try:
                await self._sync()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a ledger hiccup never stops the hosting
                log.exception("reading the hosted versions")
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), self.poll)
            except asyncio.TimeoutError:
                pass

    async def _sync(self) -> None:
        from cardarena.ratings.ledger_hosted import BUILDING
        versions = await asyncio.to_thread(self.ledger.hosted_versions,
                                           states=self.states + ((BUILDING,) if self.builds else ()))
        wanted = {}
        for v in versions:
            if self.only is not None and not self.only(v.name):
                continue
            if v.state == BUILDING:
                if v.name not in self.building:
                    self.building.add(v.name)
                    task = asyncio.create_task(self._build(v), name=f"build {v.name}")
                    self._builds.add(task)
                    task.add_done_callback(self._builds.discard)
            else:
                wanted[v.name] = v
        for name in [n for n in self.runners if n not in wanted]:
            r = self.runners.pop(name)
            log.info("hosted bot %s is no longer active: stopping it", name)
            if r.task is not None:
                r.task.cancel()
        for name, v in wanted.items():
            if name not in self.runners:
                folder = self.workdir / "run" / name
                await asyncio.to_thread(self._unpack, name, folder)
                r = _Runner(name, v.run, folder)
                self.runners[name] = r
                r.task = asyncio.create_task(self._keep(r), name=f"hosted {name}")

    def _unpack(self, name: str, folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        bundle.unpack(self.ledger.version_files(name), "tar.gz", folder, max_unpacked=bundle.MAX_UNPACKED * 2)

    # ----- one version ------------------------------------------------------------------------
    def _hold(self, name: str, held: bool) -> None:
        if self.arena is not None:
            (self.arena.held.add if held else self.arena.held.discard)(name)

    async def _keep(self, r: _Runner) -> None:
        """Run ``r`` in a sandbox, again and again: after each of its matches, after it ends by
        itself (at a backoff while it fails without playing), until it is no longer active."""
        failures = 0
        try:
            while True:
                self._hold(r.name, True)
                r.ended.clear()
                r.match_id = None
                # a token for this sandbox alone, over the socket alone, revoked when it stops: one
                # the bot writes into its log (read after the match) opens nothing
                token = self.referee.mint_session_token(r.name, unix_only=True)
                box = sandboxes.Sandbox(r.folder, name=r.name, socket=self.socket, limits=self.limits,
                                        env={"CARDARENA_TOKEN": token, "CARDARENA_MAX_MATCHES": "1"})
                r.box = box
                r.started += 1
                played = False
                t0 = time.monotonic()
                try:
                    await box.start(r.run)
                    played = await self._serve(r, box)
                except asyncio.CancelledError:
                    raise
                except Exception:  # noqa: BLE001 - one bot's trouble never stops the others
                    log.exception("hosted bot %s", r.name)
                finally:
                    self.referee.revoke_session_token(token)
                    await self._end(r, box)
                failures = 0 if played or time.monotonic() - t0 > MAX_BACKOFF else failures + 1
                if failures:
                    await asyncio.sleep(min(MAX_BACKOFF, 2.0 ** (failures - 1)))
        finally:
            self._hold(r.name, False)

    async def _serve(self, r: _Runner, box) -> bool:
        """Until its match ends (True) or it ends first, or does not connect in time (False)."""
        waiter = asyncio.ensure_future(box.wait())
        try:
            deadline = time.monotonic() + self.connect_seconds
            while not waiter.done():
                link = self.referee.links.get(r.name)
                if link is not None and link.hello.is_set():
                    break
                if time.monotonic() > deadline:
                    log.info("hosted bot %s did not connect within %g s: stopping it", r.name, self.connect_seconds)
                    return False
                await asyncio.wait([waiter], timeout=0.05)
            if waiter.done():
                return False
            self._hold(r.name, False)
            if self.arena is None:  # a league: one sandbox plays it all
                await waiter
                return False
            ended = asyncio.ensure_future(r.ended.wait())
            try:
                await asyncio.wait([waiter, ended], return_when=asyncio.FIRST_COMPLETED)
            finally:
                ended.cancel()
            if r.ended.is_set():
                r.played += 1
                return True
            return False
        finally:
            self._hold(r.name, True)
            waiter.cancel()

    async def _end(self, r: _Runner, box) -> None:
        """Stop the sandbox and keep the tail of its output as the log of its match."""
        try:
            await asyncio.shield(box.stop())
        finally:
            text = box.take_log()
            if box.stopped_for:
                text += f"\n[cardarena: the sandbox was stopped: {box.stopped_for}]\n"
            if text.strip() or r.match_id is not None:
                try:
                    await asyncio.shield(asyncio.to_thread(self.ledger.add_bot_log, r.name, r.match_id, text))
                except Exception:  # noqa: BLE001
                    log.exception("keeping the log of %s", r.name)

    # ----- builds -------------------------------------------------------------------------------
    async def _build(self, v) -> None:
        folder = self.workdir / "build" / v.name
        try:
            await asyncio.to_thread(self._unpack, v.name, folder)
            ok, text = await sandboxes.build(folder, v.build, name=v.name, limits=self.limits)
            files = None
            if ok:
                try:
                    files = await asyncio.to_thread(bundle.pack, folder, bundle.MAX_UNPACKED)
                except bundle.BundleError as e:
                    ok, text = False, text + f"\n[cardarena: the built files are too big: {e}]\n"
            await asyncio.to_thread(self.ledger.finish_build, v.name, ok, text, files)
            log.info("hosted bot %s %s", v.name, "built" if ok else "failed to build")
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - the build could not run at all: failed, said why
            log.warning("building %s: %s", v.name, e)
            try:
                await asyncio.to_thread(self.ledger.finish_build, v.name, False,
                                        f"[cardarena: the build could not run: {e}]\n")
            except Exception:  # noqa: BLE001 - another server finished it, or the ledger is away
                pass
        finally:
            self.building.discard(v.name)
            shutil.rmtree(folder, ignore_errors=True)
            self.wake()
