"""The gRPC services: thin servicers that translate messages and delegate (STYLE.md 7).

``start_server`` hosts, on one port: ``Referee`` (the bots' stream), ``Admin`` (the organizer's
calls, guarded by the admin token), the standard ``grpc.health.v1.Health`` service and server
reflection (v1 and v1alpha, :mod:`.reflection`). Errors of the ledger and of the league become
status codes in one place (:func:`_admin_call`).
"""
from __future__ import annotations

import asyncio
import functools
import hmac
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from cardarena.v1 import admin_pb2, admin_pb2_grpc, referee_pb2 as pb, referee_pb2_grpc

from . import reflection, wire
from .referee import VERSION, Link, Referee

log = logging.getLogger("cardarena.service")

MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def bearer_token(context: grpc.aio.ServicerContext) -> str:
    """The token of "authorization: Bearer <token>" in the call metadata ('' if none)."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer "):].strip()
    return ""


UNDECODABLE = object()  # what the Play stream's deserializer gives for bytes that are no BotMessage


def bot_message(data: bytes):
    """The Play stream's request deserializer: a ``BotMessage``, or ``UNDECODABLE`` (the referee
    answers it as a malformed message; grpc would log a traceback and end the stream)."""
    try:
        return pb.BotMessage.FromString(data)
    except Exception:
        return UNDECODABLE


class RefereeService(referee_pb2_grpc.RefereeServicer):
    def __init__(self, referee: Referee):
        self.referee = referee

    async def Play(self, request_iterator, context) -> AsyncIterator[pb.RefereeMessage]:
        bot = self.referee.authenticate(bearer_token(context), context.peer())
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "unknown bot token: send 'authorization: Bearer <token>' (CARDARENA_TOKEN)")
        link = Link(bot, context.peer(), *self.referee.outbox)
        link.task = asyncio.current_task()  # cancelled to cut the stream of a bot that does not read
        reader = asyncio.create_task(self._read(context, link))
        link.send(pb.RefereeMessage(welcome=pb.Welcome(bot=bot, server_version=VERSION)))
        self.referee.attach(link)
        try:
            while (msg := await link.get()) is not None:
                link.pending_write = True
                yield msg
                link.pending_write = False
        finally:
            reader.cancel()
            self.referee.detach(link)
        if link.abort_reason:
            await context.abort(getattr(grpc.StatusCode, link.abort_code), link.abort_reason)

    async def _read(self, context, link: Link) -> None:
        try:
            while (msg := await context.read()) is not grpc.aio.EOF:
                if msg is UNDECODABLE:
                    self.referee.on_malformed(link, "a message that does not decode as a BotMessage")
                    continue
                kind = msg.WhichOneof("kind")
                if kind == "answer":
                    self.referee.on_answer(link, msg.answer)
                elif kind == "hello" and link.hello.is_set():  # a connection's first message only
                    self.referee.on_stray(link, "a hello again on this connection; ignored")
                elif kind == "hello":
                    link.games = tuple(msg.hello.games)
                    link.max_matches = max(0, msg.hello.max_matches)
                    link.max_matches_per_hour = max(0, msg.hello.max_matches_per_hour)
                    link.hello.set()
                else:
                    self.referee.on_malformed(link, "a BotMessage must hold a hello or an answer")
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        except Exception:  # a broken stream ends this link, nothing else
            log.exception("reading the stream of bot %s", link.bot)
        finally:
            link.close()


def _int_id(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise AdminError(grpc.StatusCode.INVALID_ARGUMENT, f"not a match or league id: {text!r}") from None


class AdminError(Exception):
    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code


async def _require_admin(service: "AdminService", context) -> None:
    """Abort the call unless it carries the admin token."""
    token = bearer_token(context)
    if not service.admin_token or not hmac.compare_digest(token.encode(), service.admin_token.encode()):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "admin token required (CARDARENA_ADMIN_TOKEN)")


def _admin_call(method):
    """Check the admin token; turn known errors into status codes, in one place."""
    @functools.wraps(method)
    async def wrapper(self: "AdminService", request, context):
        await _require_admin(self, context)
        try:
            return await method(self, request, context)
        except AdminError as e:
            await context.abort(e.code, str(e))
        except (LookupError, ValueError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
    return wrapper


def _admin_stream(method):
    @functools.wraps(method)
    async def wrapper(self: "AdminService", request, context):
        await _require_admin(self, context)
        async for item in method(self, request, context):
            yield item
    return wrapper


def rating_rows(rows) -> list[admin_pb2.RatingRow]:
    return [admin_pb2.RatingRow(rank=r.rank, bot=r.bot, game=r.game, mu=r.mu, sigma=r.sigma,
                                conservative=r.conservative, matches=r.matches, wins=r.wins,
                                mean_place=r.mean_place) for r in rows]


class AdminService(admin_pb2_grpc.AdminServicer):
    def __init__(self, referee: Referee, ledger, admin_token: str, arena=None):
        self.referee = referee
        self.ledger = ledger
        self.admin_token = admin_token
        self.arena = arena  # server/ladder.py's Arena of `serve --ladder`, if any

    async def _in_thread(self, fn, *args, **kwargs):
        return await asyncio.to_thread(fn, *args, **kwargs)

    @_admin_call
    async def AddBot(self, request, context):
        from cardarena.ratings import LedgerError
        try:
            bot, token = await self._in_thread(self.ledger.add_bot, request.name, request.owner or None)
        except LedgerError as e:
            raise AdminError(grpc.StatusCode.ALREADY_EXISTS, str(e)) from None
        return admin_pb2.AddBotReply(name=bot.name, token=token)

    def _summary(self, b, state) -> admin_pb2.BotSummary:
        arena = self.arena
        summary = admin_pb2.BotSummary(name=b.name, created=b.created_at.isoformat(), owner=b.owner or "",
                                       connected=self.referee.is_connected(b.name))
        if arena is not None:
            summary.state = arena.state_of(b.name)
        elif state is not None and state.paused:
            summary.state = "paused"
        if arena is not None and b.name in arena.benched:  # the arena's own bench: state and time agree
            until, why = arena.benched[b.name]
            summary.benched_until, summary.bench_reason = until.isoformat(timespec="seconds"), why
        elif state is not None and state.benched_until is not None and state.benched(_now()):
            summary.benched_until = state.benched_until.isoformat(timespec="seconds")
            summary.bench_reason = state.bench_reason or ""
        return summary

    @_admin_call
    async def ListBots(self, request, context):
        bots = await self._in_thread(self.ledger.bots)
        states = {s.name: s for s in await self._in_thread(self.ledger.bot_states)}
        return admin_pb2.ListBotsReply(bots=[self._summary(b, states.get(b.name)) for b in bots])

    @_admin_call
    async def PauseBot(self, request, context):
        from cardarena.ratings import LedgerError
        try:
            state = await self._in_thread(self.ledger.set_paused, request.name, request.paused)
            bot = await self._in_thread(self.ledger.bot, request.name)
        except LedgerError as e:
            raise AdminError(grpc.StatusCode.NOT_FOUND, str(e)) from None
        if self.arena is not None:
            (self.arena.paused.add if request.paused else self.arena.paused.discard)(request.name)
            self.arena.wake()
        return self._summary(bot, state)

    @_admin_call
    async def Ratings(self, request, context):
        rows = await self._in_thread(self.ledger.ratings, request.game or None)
        return admin_pb2.RatingsReply(rows=rating_rows(rows))

    @_admin_call
    async def ListMatches(self, request, context):
        rows = await self._in_thread(self.ledger.matches, league_id=_int_id(request.league_id) if request.league_id else None,
                                     game=request.game or None, limit=request.limit or 50)
        return admin_pb2.ListMatchesReply(matches=[match_summary(m) for m in rows])

    @_admin_call
    async def GetMatch(self, request, context):
        from cardarena.ratings import LedgerError
        try:
            m = await self._in_thread(self.ledger.match, _int_id(request.match_id))
        except LedgerError as e:
            raise AdminError(grpc.StatusCode.NOT_FOUND, str(e)) from None
        detail = admin_pb2.MatchDetail(match=match_summary(m), seed=m.seed, options=wire.struct(m.options))
        for ev in m.events:
            le = detail.events.add(step=ev["step"], public=ev["seats"] is None, seats=ev["seats"] or [])
            le.data.update(ev["data"])
        return detail

    @_admin_stream
    async def RunLeague(self, request, context):
        from .league import LeagueSpec, run_league
        spec = LeagueSpec(
            game=request.game, bots=list(request.bots) + list(request.local_bots),
            seats=request.seats or 0, rounds=request.rounds or 1, seed=request.seed or None,
            concurrency=request.concurrency or 4, move_seconds=request.move_seconds or None,
            options=wire.to_dict(request.options) if request.HasField("options") else {},
            start_timeout=request.start_timeout or 30.0, matches=request.matches or None,
            duplicate=request.duplicate, bank_seconds=request.bank_seconds or None,
            max_faults=request.max_faults if request.HasField("max_faults") else None,
            grace_seconds=request.grace_seconds if request.HasField("grace_seconds") else None,
            max_reconnects=request.max_reconnects if request.HasField("max_reconnects") else None)
        from cardarena.ratings import LedgerError
        for name in request.local_bots:  # bots the caller starts: registered on first use
            try:
                await self._in_thread(self.ledger.bot, name)
            except LedgerError:
                await self._in_thread(self.ledger.add_bot, name)
        tokens = [admin_pb2.SessionToken(bot=b, token=self.referee.mint_session_token(b)) for b in request.local_bots]
        queue: asyncio.Queue = asyncio.Queue()

        def progress(league_id, done, total, match_id):
            queue.put_nowait(admin_pb2.LeagueProgress(league_id=str(league_id), done=done, total=total,
                                                     last_match_id=str(match_id or "")))

        async def run():
            try:
                league_id = await run_league(self.referee, self.ledger, spec, progress=progress)
                rows = await self._in_thread(self.ledger.ratings, spec.game)
                queue.put_nowait(admin_pb2.LeagueProgress(league_id=str(league_id), ratings=rating_rows(rows)))
            except Exception as e:  # reported to the caller, the server goes on
                queue.put_nowait(admin_pb2.LeagueProgress(error=str(e)))
            queue.put_nowait(None)

        yield admin_pb2.LeagueProgress(session_tokens=tokens)
        task = asyncio.create_task(run())
        try:
            while (item := await queue.get()) is not None:
                yield item
        finally:
            if not task.done():
                task.cancel()


def _now():
    from datetime import datetime, timezone
    return datetime.now(timezone.utc)


def match_summary(m) -> admin_pb2.MatchSummary:
    faults = getattr(m, "faults", None) or [0] * len(m.bots)
    forfeited = getattr(m, "forfeited", None) or [False] * len(m.bots)
    return admin_pb2.MatchSummary(
        match_id=str(m.id), game=m.game, league_id=str(m.league_id or ""), status=m.status,
        seats=[admin_pb2.SeatSummary(seat=s, bot=b, score=m.scores[s] or 0.0, place=m.places[s] or 0,
                                     faults=faults[s] or 0, forfeited=bool(forfeited[s]))
               for s, b in enumerate(m.bots)])


@dataclass
class Hosted:
    server: grpc.aio.Server
    port: int
    referee: Referee

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def stop(self, grace: float | None = 0.5) -> None:
        """Stop serving: every bot's stream first ends cleanly (``UNAVAILABLE``, "the referee is
        shutting down"; a bot that does not read is cut), then the server stops. Stopping the
        server alone would leave grpc to fail the writes still waiting, each with a traceback."""
        for link in list(self.referee.links.values()):
            if link.pending_write and link.task is not None:
                link.task.cancel()  # stuck in a write to a bot that does not read: cut
            link.abort("the referee is shutting down", code="UNAVAILABLE")
        await asyncio.sleep(0)
        await self.server.stop(grace)


async def start_server(referee: Referee, address: str = "127.0.0.1:0", ledger=None,
                       admin_token: str = "", tls: tuple[bytes, bytes] | None = None, arena=None,
                       hosting=None, unix_socket: str | None = None) -> Hosted:
    """Start the referee (and, with a ledger, the admin service) on ``address``; port 0 picks one.
    ``hosting``: a :class:`~.hosting_service.HostingService` served beside them (bot authors'
    submissions); ``unix_socket``: a path the referee also listens on, without TLS (the hosted
    bots' sandboxes reach it there, and nothing else)."""
    server = grpc.aio.server(options=[
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ("grpc.so_reuseport", 0),
        ("grpc.max_concurrent_streams", 16),  # in-flight calls per connection
    ])
    # Play is registered by hand (not add_RefereeServicer_to_server) for its serializer: the
    # referee hands decisions over already in wire format (wire.decision_bytes)
    play = {"Play": grpc.stream_stream_rpc_method_handler(
        RefereeService(referee).Play, request_deserializer=bot_message,
        response_serializer=wire.serialize)}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("cardarena.v1.Referee", play),))
    server.add_registered_method_handlers("cardarena.v1.Referee", play)
    names = [pb.DESCRIPTOR.services_by_name["Referee"].full_name]
    if ledger is not None:
        admin_pb2_grpc.add_AdminServicer_to_server(AdminService(referee, ledger, admin_token, arena), server)
        names.append(admin_pb2.DESCRIPTOR.services_by_name["Admin"].full_name)
    if hosting is not None:
        from cardarena.v1 import hosting_pb2, hosting_pb2_grpc
        hosting_pb2_grpc.add_HostingServicer_to_server(hosting, server)
        names.append(hosting_pb2.DESCRIPTOR.services_by_name["Hosting"].full_name)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names.append(health_pb2.DESCRIPTOR.services_by_name["Health"].full_name)
    reflection.enable_server_reflection(names, server)  # v1 and v1alpha
    if tls is not None:
        creds = grpc.ssl_server_credentials([(tls[1], tls[0])])  # (key, cert)
        port = server.add_secure_port(address, creds)
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    if unix_socket is not None and not server.add_insecure_port(f"unix:{unix_socket}"):
        raise OSError(f"cannot listen on unix:{unix_socket}")
    await server.start()
    for name in names:
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return Hosted(server, port, referee)
