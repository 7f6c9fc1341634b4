"""The ``Hosting`` gRPC service (proto/cardarena/v1/hosting.proto): a bot's author submits its
code, lists, activates and retires its versions and reads its logs, each call on that bot's
own token. Design notes: docs/hosted.md.
"""
from __future__ import annotations

import asyncio
import collections
import functools
import shutil
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import grpc

from cardarena.v1 import hosting_pb2 as hpb, hosting_pb2_grpc

from . import bundle
from .service import bearer_token

#: Submissions a bot may make in an hour: each kept is in the ledger; a refused one counts too
#: (its unpacking costs the server as much), remembered by this server while it runs.
SUBMISSIONS_PER_HOUR = 10


class _Refused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code


def version_pb(v) -> hpb.Version:
    return hpb.Version(name=v.name, number=v.number, state=v.state, sha256=v.sha256, size=v.size,
                       created=v.created_at.isoformat(timespec="seconds"), run=v.run, build=v.build or "",
                       build_log=v.build_log or "", matches=v.matches,
                       ratings=[hpb.VersionRating(game=g, mu=mu, sigma=s) for g, mu, s in v.ratings])


def _call(method):
    """The bot's own token for the bot the request names; known errors as status codes."""
    @functools.wraps(method)
    async def wrapper(self: "HostingService", request, context):
        from cardarena.ratings import LedgerError
        try:
            return await method(self, request, context)
        except _Refused as e:
            await context.abort(e.code, str(e))
        except (LedgerError, bundle.BundleError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
    return wrapper


class HostingService(hosting_pb2_grpc.HostingServicer):
    """``hosting``: the server's :class:`~.hosted.Hosting` (None: this server hosts no bots,
    and ``refusal`` says why)."""

    def __init__(self, ledger, hosting=None, refusal: str | None = None, max_archive: int = bundle.MAX_ARCHIVE):
        self.ledger = ledger
        self.hosting = hosting
        self.refusal = refusal
        self.max_archive = max_archive
        self._tries: dict[str, collections.deque] = {}  # bot → when its submissions came (monotonic)

    async def _owner(self, context, name: str) -> str:
        """The bot ``name`` (or the bot of the version ``name``) if the call carries its token."""
        from cardarena.ratings.ledger_hosted import is_version_name, split_version
        token = bearer_token(context)
        bot = await asyncio.to_thread(self.ledger.bot_by_token, token) if token else None
        if bot is None:
            raise _Refused(grpc.StatusCode.UNAUTHENTICATED,
                           "unknown bot token: send the bot's own token (CARDARENA_TOKEN, from `bot add`)")
        wanted = split_version(name)[0] if is_version_name(name) and name != bot.name else name
        if wanted != bot.name:
            raise _Refused(grpc.StatusCode.PERMISSION_DENIED, f"this token is bot {bot.name}'s, not {wanted}'s")
        return bot.name

    @_call
    async def Submit(self, request_iterator, context):
        header, parts, got = None, [], 0
        async for part in request_iterator:
            if header is None:
                if not part.HasField("header"):
                    raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, "the first part must carry the header")
                header = part.header
                bot = await self._owner(context, header.bot)
                if self.hosting is None:
                    raise _Refused(grpc.StatusCode.FAILED_PRECONDITION, f"this server hosts no bots: {self.refusal}")
                if header.format not in ("tar.gz", "zip"):
                    raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, "format: tar.gz or zip")
                if header.size > self.max_archive:
                    raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED, self._too_big())
                if not header.run.strip():
                    raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, "a hosted bot needs the command that runs it (--run)")
                kept = await asyncio.to_thread(self._recent, bot)
                tries = self._tries.setdefault(bot, collections.deque())  # from here to append: no await
                now = time.monotonic()
                while tries and tries[0] < now - 3600:
                    tries.popleft()
                recent = max(len(tries), kept)
                if recent >= SUBMISSIONS_PER_HOUR:
                    raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                   f"{bot} has made {recent} submissions in the last hour (refused ones "
                                   f"included), the most an hour")
                tries.append(now)
            got += len(part.data)
            if got > self.max_archive:
                raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED, self._too_big())
            parts.append(part.data)
        if header is None:
            raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, "no files were sent")
        data = b"".join(parts)
        info = await asyncio.to_thread(self._store, bot, data, header)
        self.hosting.wake()
        return hpb.SubmitReply(version=version_pb(info))

    def _too_big(self) -> str:
        return f"the files are more than {self.max_archive // (1024 * 1024)} MB packed (the server's limit)"

    def _recent(self, bot: str) -> int:
        from cardarena.ratings.models import utcnow
        since = utcnow() - timedelta(hours=1)
        return sum(1 for v in self.ledger.versions(bot) if v.created_at >= since)

    def _store(self, bot: str, data: bytes, header):
        """Unpack into a folder of our own (within the limits), hash, repack the same way every
        time, and keep it as a new version."""
        tmp = Path(tempfile.mkdtemp(prefix="cardarena-submit-"))
        try:
            bundle.unpack(data, header.format, tmp / "files")
            sha, size = bundle.content_hash(tmp / "files")
            if size == 0:
                raise bundle.BundleError("the files are empty")
            packed = bundle.pack(tmp / "files", bundle.MAX_UNPACKED)
            return self.ledger.add_version(bot, packed, sha256=sha, size=size, run=header.run,
                                           build=header.build or None)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @_call
    async def Versions(self, request, context):
        bot = await self._owner(context, request.bot)
        versions = await asyncio.to_thread(self.ledger.versions, bot)
        return hpb.VersionsReply(versions=[version_pb(v) for v in versions])

    @_call
    async def Activate(self, request, context):
        return hpb.ActivateReply(version=await self._set_state(context, request.name, "active"))

    @_call
    async def Retire(self, request, context):
        return hpb.RetireReply(version=await self._set_state(context, request.name, "retired"))

    async def _set_state(self, context, name: str, state: str):
        """The owner's version ``name`` made ``state``; the hosting manager is told."""
        await self._owner(context, name)
        v = await asyncio.to_thread(self.ledger.set_version_state, name, state)
        if self.hosting is not None:
            self.hosting.wake()
        return version_pb(v)

    @_call
    async def Logs(self, request, context):
        await self._owner(context, request.bot)
        rows = await asyncio.to_thread(self.ledger.bot_logs, request.bot, request.match_id or None,
                                       min(max(request.limit, 0) or 10, 100))
        return hpb.LogsReply(logs=[hpb.MatchLog(version=name, match_id=log.match_id or 0,
                                                created=log.created_at.isoformat(timespec="seconds"),
                                                text=log.text) for name, log in rows])
