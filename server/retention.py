"""Retention while serving (``cardarena serve --keep-logs DAYS``): the step and event logs of the
ladder matches that finished more than DAYS days ago are pruned when the server starts and every
:data:`EVERY` seconds (``Ledger.prune``: results, ratings and deals kept), in a thread, so the
event loop never waits for the ledger; a stopping server ends it between two batches.

The space: on PostgreSQL each prune that dropped something is followed by ``VACUUM`` (it takes
no lock that writers wait for). On SQLite the file is not vacuumed while serving: ``VACUUM``
rewrites the whole file, and every match being recorded would wait for it. The freed pages are
reused by the matches that follow, so the file stops growing once it holds about DAYS days of
logs; ``cardarena ledger prune`` (the server stopped, or at a quiet hour) gives the space back.
What this process's web keeps of a pruned match is dropped (``forget``: ``web.replay.forget``).
"""
from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Sequence

from cardarena.ratings.models import LADDER

#: Seconds between two prunes.
EVERY = 3600.0


class Keeper:
    """The prune of one server's ledger, at start and every ``every`` seconds (module docstring)."""

    def __init__(self, ledger, days: float, say: Callable[[str], None],
                 forget: Callable[[Sequence[int]], None] | None = None, every: float = EVERY, kind: str = LADDER):
        self.ledger, self.days, self.say, self.forget, self.every, self.kind = ledger, days, say, forget, every, kind
        self._stopping = threading.Event()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="keep-logs")

    async def stop(self) -> None:
        """Stop: a prune under way ends after its batch (the thread is not waited for here)."""
        self._stopping.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def once(self):
        """One prune (and on PostgreSQL its VACUUM), blocking: ``Ledger.prune``'s answer."""
        pruned = self.ledger.prune(self.days, self.kind, stopped=self._stopping.is_set)
        if pruned.ids and self.ledger.engine.dialect.name != "sqlite" and not self._stopping.is_set():
            self.ledger.reclaim()
        return pruned

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                pruned = await asyncio.to_thread(self.once)
            except Exception as e:  # a full disk, the database away, anything: said; the server plays on
                self.say(f"keep-logs: pruning failed ({type(e).__name__}: {e}); trying again in {self.every:g} s")
            else:
                if pruned.ids:
                    if self.forget is not None:
                        self.forget(pruned.ids)
                    self.say(f"keep-logs: pruned the step logs of {len(pruned.ids)} {self.kind} matches finished "
                             f"before {pruned.cutoff:%Y-%m-%d %H:%M} UTC (results, ratings and deals kept)")
            await asyncio.sleep(self.every)


def start(ledger, days: float, say: Callable[[str], None], app=None) -> Keeper:
    """``serve --keep-logs``: a :class:`Keeper` of ``ledger`` started, forgetting in ``app`` (this
    process's web, if any) what it kept of each pruned match; says what it keeps in one line."""
    forget = None
    if app is not None:
        from .web.replay import forget as web_forget
        forget = functools.partial(web_forget, app)
    keeper = Keeper(ledger, days, say, forget)
    keeper.start()
    sqlite = ledger.engine.dialect.name == "sqlite"
    say(f"keep-logs: ladder matches keep their step logs {days:g} days (pruned now and every {EVERY / 3600:g} h"
        + ("; SQLite reuses the space, `ledger prune` gives it back to the system)" if sqlite else ")"))
    return keeper
