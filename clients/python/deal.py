"""Checking the deal: the referee's commitment against the seed and salt it reveals.

Before the first decision of a match the referee sends ``MatchStart.deal_commitment``: the
lowercase hex SHA-256 of the UTF-8 string ``cardarena-deal:v1:{game}:{match_id}:{seed}:{salt}``
(the game id, the match id, the match seed in decimal, the salt: 32 lowercase hex digits). Once
the deal is spent, ``MatchEnd`` reveals ``seed`` and ``deal_salt``; both stay empty while the deal
is still in play (another rotation of a duplicate set) and when the match was aborted.

:func:`deal_commitment` recomputes a commitment (a pure function, for bot authors too);
:class:`DealCheck` is what :func:`cardarena.client.play` runs on every MatchStart and MatchEnd:
it logs (logger ``cardarena.client``) one INFO line when the revealed deal matches, one ERROR
line when it does not, and then calls the bot's ``on_deal_mismatch(match_id, committed,
computed)`` if the bot has one. It never raises.

Only the standard library: the SDK does not import the server (``cardarena.server.deal`` makes
the same string).
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import inspect
import logging
from collections import OrderedDict
from typing import Any

log = logging.getLogger("cardarena.client")

#: The commitment's format, its first field (the server's ``cardarena.server.deal.PREFIX``).
PREFIX = "cardarena-deal:v1"

#: Matches remembered at once, at most: a match that never ends for this bot (aborted while it
#: was away, a lost stream) is forgotten, oldest first, beyond this many.
KEPT = 4096


def deal_commitment(game: str, match_id: str | int, seed: int | str, salt: str) -> str:
    """The commitment of a deal: lowercase hex SHA-256 of
    ``cardarena-deal:v1:{game}:{match_id}:{seed}:{salt}``, the seed written in decimal.
    ``seed`` may be an int or its decimal text (as ``MatchEnd.seed``); other text raises
    ValueError."""
    text = f"{PREFIX}:{game}:{match_id}:{int(seed)}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DealCheck:
    """Remembers each match's game and commitment at MatchStart and checks the deal at MatchEnd.

    ``start(match_start)`` and ``end(match_end)`` take the protobuf messages (or anything with
    the same attributes). ``end`` returns True (the deal verified), False (a mismatch: logged at
    ERROR, the bot's ``on_deal_mismatch`` called) or None (nothing to check: an older server
    without commitments, a deal not revealed yet, an unknown match). A match is forgotten at
    its MatchEnd, so the memory held is the matches in play.
    """

    def __init__(self, bot: Any = None, kept: int = KEPT):
        self.bot = bot
        self.kept = kept
        self.matches: OrderedDict[str, tuple[str, str]] = OrderedDict()  # match id → (game, commitment)
        self._tasks: set[asyncio.Task] = set()  # async on_deal_mismatch calls running

    def start(self, m) -> None:
        try:
            committed = m.deal_commitment
            if not committed:
                log.debug("match %s: no deal commitment (an older referee); the deal is not checked", m.match_id)
                return
            known = self.matches.get(m.match_id)
            if known is not None:
                if known != (m.game, committed):
                    log.error("match %s: the referee sent a second MatchStart with another deal commitment "
                              "(%s, first %s); the first one is kept", m.match_id, committed, known[1])
                return
            self.matches[m.match_id] = (m.game, committed)
            while len(self.matches) > self.kept:
                self.matches.popitem(last=False)
        except Exception:  # never into the bot's loop
            log.exception("the deal check failed on the start of a match")

    def end(self, m) -> bool | None:
        try:
            known = self.matches.pop(m.match_id, None)
            seed, salt = m.seed, m.deal_salt
            if known is None:
                if seed or salt:
                    log.debug("match %s: a deal revealed, but no commitment was received for it", m.match_id)
                return None
            if not seed and not salt:
                log.debug("match %s: the deal is not revealed yet (%s); not checked", m.match_id,
                          m.status or "no status")
                return None
            game, committed = known
            if not seed or not salt:
                computed = "(nothing: the seed or the salt is missing)"
            else:
                try:
                    computed = deal_commitment(game, m.match_id, seed, salt)
                except ValueError:
                    computed = f"(nothing: the seed {seed!r} is not a decimal number)"
            if hmac.compare_digest(computed.encode(), committed.encode()):
                log.info("match %s: the deal verified against its commitment", m.match_id)
                return True
            log.error("match %s: THE DEAL DOES NOT MATCH ITS COMMITMENT: the referee committed to %s before "
                      "play; the revealed seed %r and salt %r give %s (sha256 of %s:{game}:{match_id}:{seed}:"
                      "{salt}, game %r): the deal may have been changed after the match started",
                      m.match_id, committed, seed, salt, computed, PREFIX, game)
            self._tell(m.match_id, committed, computed)
            return False
        except Exception:  # never into the bot's loop
            log.exception("the deal check failed on the end of a match")
            return None

    def _tell(self, match_id: str, committed: str, computed: str) -> None:
        """The bot's ``on_deal_mismatch(match_id, committed, computed)``, if it has one (an
        ``async def`` one runs as a task of the running loop)."""
        hook = getattr(self.bot, "on_deal_mismatch", None)
        if hook is None:
            return
        try:
            result = hook(match_id, committed, computed)
            if inspect.iscoroutine(result):
                try:
                    task = asyncio.get_running_loop().create_task(result)
                except RuntimeError:  # no loop running (called outside play())
                    result.close()
                    raise
                self._tasks.add(task)
                task.add_done_callback(self._done)
        except Exception:
            log.exception("the bot raised in on_deal_mismatch for match %s", match_id)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("the bot raised in on_deal_mismatch", exc_info=task.exception())
